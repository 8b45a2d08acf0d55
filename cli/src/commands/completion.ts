import type { Command } from 'commander';
import { UsageError } from '../runtime.js';

const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

/**
 * One node of the command tree: its path from the root (`actions create`), sub-commands and long options, each with
 * the values it accepts when the command declares them (`Option.choices`, from the contract's enums).
 */
interface Node {
  path: string[];
  description: string;
  subcommands: Node[];
  options: { flag: string; description: string; values: readonly string[] }[];
}

/** The tree of the built program, so completions follow every verb and choice added later without a second list. */
function commandTree(cmd: Command, path: string[] = []): Node {
  return {
    path,
    description: cmd.description(),
    subcommands: cmd.commands.map((sub) => commandTree(sub, [...path, sub.name()])),
    options: [
      ...cmd.options
        .filter((o) => o.long)
        .map((o) => ({ flag: o.long!, description: o.description, values: o.argChoices ?? [] })),
      { flag: '--help', description: 'show help', values: [] },
    ],
  };
}

function walk(node: Node): Node[] {
  return [node, ...node.subcommands.flatMap(walk)];
}

const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/**
 * bash (and zsh through bashcompinit): the words typed so far that name sub-commands select a node; the candidates
 * are its sub-commands and options, plus the global options; after an option that takes one of a set of values,
 * those values.
 */
function bash(root: Node): string {
  const nodes = walk(root);
  const cases = nodes
    .map((n) => {
      const words = [...n.subcommands.map((s) => s.path.at(-1)!), ...n.options.map((o) => o.flag)];
      const subs = n.subcommands.map((s) => quote(s.path.at(-1)!)).join(' ');
      return `    ${quote(n.path.join(' '))}) subs=(${subs}); words=(${words.map(quote).join(' ')}) ;;`;
    })
    .join('\n');
  const valueCases = nodes
    .flatMap((n) =>
      n.options
        .filter((o) => o.values.length > 0)
        .map(
          (o) => `    ${quote(`${n.path.join(' ')}|${o.flag}`)}) words=(${o.values.map(quote).join(' ')}) ;;`,
        ),
    )
    .join('\n');
  return `# sched completion for bash: eval "$(sched completion bash)", or save it under
# ~/.local/share/bash-completion/completions/sched
_sched_completion() {
  # zsh (through bashcompinit) indexes arrays from 1 unless told otherwise.
  [[ -n "\${ZSH_VERSION-}" ]] && setopt localoptions ksharrays
  local cur="\${COMP_WORDS[COMP_CWORD]}" at="" i w
  local -a subs words
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    _sched_node "$at"
    if [[ " \${subs[*]} " == *" $w "* ]]; then at="\${at:+$at }$w"; fi
  done
  _sched_node "$at"
  # After an option that takes one of a set of values: those values instead.
  (( COMP_CWORD > 1 )) && _sched_values "$at|\${COMP_WORDS[COMP_CWORD-1]}"
  # Filtered here rather than by compgen, whose zsh emulation differs.
  COMPREPLY=()
  for w in "\${words[@]}"; do [[ "$w" == "$cur"* ]] && COMPREPLY+=("$w"); done
}
_sched_node() {
  case "$1" in
${cases}
    *) subs=(); words=() ;;
  esac
}
_sched_values() {
  case "$1" in
${valueCases}
  esac
}
complete -o default -F _sched_completion sched
`;
}

function zsh(root: Node): string {
  return `#compdef sched
# sched completion for zsh: eval "$(sched completion zsh)" in ~/.zshrc
autoload -U +X bashcompinit && bashcompinit
${bash(root)}`;
}

function fish(root: Node): string {
  const lines = [
    '# sched completion for fish: sched completion fish > ~/.config/fish/completions/sched.fish',
  ];
  lines.push('complete -c sched -f');
  for (const node of walk(root)) {
    // The node is selected when its path has been typed and none of its sub-commands yet.
    const seen = node.path.map((word) => `__fish_seen_subcommand_from ${word}`);
    const subs = node.subcommands.map((s) => s.path.at(-1)!);
    const condition = [
      ...(seen.length ? seen : ['__fish_use_subcommand']),
      ...(subs.length && seen.length ? [`not __fish_seen_subcommand_from ${subs.join(' ')}`] : []),
    ].join('; and ');
    for (const sub of node.subcommands) {
      lines.push(
        `complete -c sched -n ${quote(condition)} -a ${quote(sub.path.at(-1)!)} -d ${quote(sub.description)}`,
      );
    }
    for (const option of node.options) {
      // -x: the option takes an argument, one of these values (no file names).
      const values = option.values.length ? ` -x -a ${quote(option.values.join(' '))}` : '';
      lines.push(
        `complete -c sched -n ${quote(condition)} -l ${option.flag.slice(2)}${values} -d ${quote(option.description)}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

export function completionScript(shell: string, program: Command): string {
  if (!(SHELLS as readonly string[]).includes(shell))
    throw new UsageError(`completion: shell must be one of ${SHELLS.join(', ')}`);
  const root = commandTree(program);
  const scripts: Record<Shell, (root: Node) => string> = { bash, zsh, fish };
  return scripts[shell as Shell](root);
}

export function configureCompletionCommand(program: Command): void {
  program
    .command('completion <shell>')
    .description(`print a shell completion script: ${SHELLS.join(' | ')}`)
    .action((shell: string) => {
      process.stdout.write(completionScript(shell, program));
    });
}
