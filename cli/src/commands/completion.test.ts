import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../program.js';
import { completionScript } from './completion.js';

/** Runs the generated function as bash (or zsh through bashcompinit) would on TAB, and answers the candidates. */
function complete(words: string[], shell: 'bash' | 'zsh' = 'bash'): string[] {
  const script = completionScript(shell, buildProgram());
  const line = words.map((w) => `'${w}'`).join(' ');
  const setup = shell === 'zsh' ? 'autoload -U compinit && compinit -u\n' : '';
  const call = `COMP_WORDS=(${line}); COMP_CWORD=${words.length - 1}; _sched_completion; echo "\${COMPREPLY[*]}"`;
  const out = execFileSync(shell, ['-c', `${setup}${script}\n${call}`], {
    encoding: 'utf8',
    env: { ...process.env, HOME: tmpdir() },
  });
  return out.trim().split(' ').filter(Boolean);
}

const has = (shell: string) => ['/usr/bin', '/bin', '/usr/local/bin'].some((d) => existsSync(join(d, shell)));

describe('sched completion', () => {
  it('bash completes nouns, verbs and their options from the program itself', () => {
    expect(complete(['sched', 'act'])).toEqual(['actions']);
    expect(complete(['sched', 'actions', 'wat'])).toEqual(['watch']);
    expect(complete(['sched', 'config', 'se'])).toEqual(['set']);
    expect(complete(['sched', 'actions', 'create', '--url', 'x', '--i'])).toEqual([
      '--in',
      '--idempotency-key',
    ]);
    expect(complete(['sched', '--api-u'])).toEqual(['--api-url']);
  });

  it('bash completes the values of an option that takes one of a set, per command', () => {
    expect(complete(['sched', 'actions', 'list', '--status', 'fa'])).toEqual(['failed']);
    expect(complete(['sched', 'actions', 'list', '--mode', ''])).toEqual([
      'webhook',
      'approval',
      'immediate',
      'gated',
    ]);
    expect(complete(['sched', 'actions', 'create', '--retry-strategy', 'e'])).toEqual(['exponential']);
    // The same flag on another command has that command's values (chains have their own statuses).
    expect(complete(['sched', 'chains', 'list', '--status', 'fa'])).toEqual(['failed']);
    expect(complete(['sched', 'chains', 'list', '--status', 'sch'])).toEqual([]);
    // An option without a set of values, and the word after a value, complete as before.
    expect(complete(['sched', 'actions', 'list', '--status', 'failed', '--per'])).toEqual(['--per-page']);
    expect(complete(['sched', 'actions', 'create', '--url', 'x', '--i'])).toEqual([
      '--in',
      '--idempotency-key',
    ]);
  });

  it('zsh loads the bash function through bashcompinit; fish lists each verb under its noun', () => {
    expect(completionScript('zsh', buildProgram())).toMatch(
      /^#compdef sched\n.*\nautoload -U \+X bashcompinit && bashcompinit\n/,
    );
    const fish = completionScript('fish', buildProgram());
    expect(fish).toContain(
      "complete -c sched -n '__fish_seen_subcommand_from actions; and not __fish_seen_subcommand_from create list get attempts cancel retry replay watch wait pause resume reschedule run' -a 'watch'",
    );
    expect(fish).toContain("-l url -d 'where to send the request (required without --from-file)'");
    // An option with a set of values takes one of them (-x: an argument, no file names).
    expect(fish).toContain("-l retry-strategy -x -a 'exponential linear'");
  });

  it.skipIf(!has('zsh'))('zsh runs the same function (arrays indexed from 0 there too)', () => {
    expect(complete(['sched', 'actions', 'wat'], 'zsh')).toEqual(['watch']);
    expect(complete(['sched', 'actions', 'list', '--status', 'fa'], 'zsh')).toEqual(['failed']);
    expect(complete(['sched', 'actions', 'create', '--url', 'x', '--i'], 'zsh')).toEqual([
      '--in',
      '--idempotency-key',
    ]);
  });

  it.skipIf(!has('fish'))('fish completes verbs under their noun, and their options', () => {
    const script = join(mkdtempSync(join(tmpdir(), 'sched-fish-')), 'sched.fish');
    writeFileSync(script, completionScript('fish', buildProgram()));
    const candidates = (line: string) =>
      execFileSync('fish', ['-c', `source ${script}; complete -C '${line}'`], { encoding: 'utf8' })
        .trim()
        .split('\n')
        .map((row) => row.split('\t')[0]);
    expect(candidates('sched actions wat')).toEqual(['watch']);
    expect(candidates('sched config s')).toEqual(['set']);
    expect(candidates('sched actions create --ur')).toEqual(['--url']);
    expect(candidates('sched actions list --status fa')).toEqual(['failed']);
  });

  it('refuses an unknown shell', () => {
    expect(() => completionScript('powershell', buildProgram())).toThrow(/bash, zsh, fish/);
  });
});
