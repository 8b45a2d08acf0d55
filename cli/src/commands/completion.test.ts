import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../program.js';
import { completionScript } from './completion.js';

/** Runs the generated bash function as bash would on TAB, and answers the candidates. */
function complete(words: string[]): string[] {
  const script = completionScript('bash', buildProgram());
  const line = words.map((w) => `'${w}'`).join(' ');
  const out = execFileSync(
    'bash',
    [
      '-c',
      `${script}\nCOMP_WORDS=(${line}); COMP_CWORD=${words.length - 1}; _sched_completion; echo "\${COMPREPLY[*]}"`,
    ],
    { encoding: 'utf8' },
  );
  return out.trim().split(' ').filter(Boolean);
}

describe('sched completion', () => {
  it('bash completes nouns, verbs and their options from the program itself', () => {
    expect(complete(['sched', 'act'])).toEqual(['actions']);
    expect(complete(['sched', 'actions', 'w'])).toEqual(['watch']);
    expect(complete(['sched', 'config', 'se'])).toEqual(['set']);
    expect(complete(['sched', 'actions', 'create', '--url', 'x', '--i'])).toEqual([
      '--in',
      '--idempotency-key',
    ]);
    expect(complete(['sched', '--api-u'])).toEqual(['--api-url']);
  });

  it('zsh loads the bash function through bashcompinit; fish lists each verb under its noun', () => {
    expect(completionScript('zsh', buildProgram())).toMatch(
      /^#compdef sched\n.*\nautoload -U \+X bashcompinit && bashcompinit\n/,
    );
    const fish = completionScript('fish', buildProgram());
    expect(fish).toContain(
      "complete -c sched -n '__fish_seen_subcommand_from actions; and not __fish_seen_subcommand_from create list get cancel retry watch' -a 'watch'",
    );
    expect(fish).toContain("-l url -d 'where to send the request'");
  });

  it('refuses an unknown shell', () => {
    expect(() => completionScript('powershell', buildProgram())).toThrow(/bash, zsh, fish/);
  });
});
