#!/usr/bin/env node
import { main } from './program.js';

const code = await main(process.argv);
// A running `serve` keeps the process alive; every other verb, and a failed start, exits with its code.
if (code !== 0 || process.argv[2] !== 'serve') process.exit(code);
