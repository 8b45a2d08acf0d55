export { buildProgram, main } from './program.js';
