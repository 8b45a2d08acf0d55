#!/usr/bin/env node
import { enablePrivateCompileCache } from './compile-cache.js';
import { serverNodeProblem } from './node-version.js';

// V8 compiles the server's seven hundred modules at every start, most of a start's CPU: Node's compile cache, in a
// folder of this user's only (compile-cache.ts), lets the next start skip that. Node < 22.1 has none.
enablePrivateCompileCache();

// A Node.js too old for the server fails deep inside a dependency; say what is wrong instead.
const nodeProblem = serverNodeProblem(process.argv[2]);
if (nodeProblem !== undefined) {
  process.stderr.write(nodeProblem);
  process.exit(1);
}

// `serve` starts again, as the same process, with the V8 heap flags of SCHED_HEAP_MB and SCHED_SEMI_SPACE_MB: V8
// reads them only at start-up, and this is the moment before anything is loaded (process.execve: Node >= 22.15).
// The server package is optional for the CLI: without it `serve` goes on to say so.
if (process.argv[2] === 'serve' && typeof process.execve === 'function') {
  const environment = await import('@sched/server/environment').catch(() => undefined);
  const flags = environment?.heapFlags(process.env, process.execArgv) ?? [];
  if (flags.length > 0)
    process.execve(process.execPath, [
      process.execPath,
      ...flags,
      ...process.execArgv,
      ...process.argv.slice(1),
    ]);
}

const { main } = await import('./program.js');
const code = await main(process.argv);
// A running `serve` keeps the process alive; every other verb, and a failed start, exits with its code.
if (code !== 0 || process.argv[2] !== 'serve') process.exit(code);
