import { describe, expect, it } from 'vitest';
import { satisfiesMinimum, serverNodeProblem } from './node-version.js';

describe('the Node.js a server verb needs', () => {
  it('compares versions against a >= range', () => {
    expect(satisfiesMinimum('v22.17.0', '>=22.17')).toBe(true);
    expect(satisfiesMinimum('v22.16.9', '>=22.17')).toBe(false);
    expect(satisfiesMinimum('v20.20.2', '>=22.17')).toBe(false);
    expect(satisfiesMinimum('v24.0.0', '>=22.17')).toBe(true);
    expect(satisfiesMinimum('v22.17.1', '>=22.17.2')).toBe(false);
    expect(satisfiesMinimum('v18.0.0', '^22')).toBe(true);
  });

  it("names the server package's range and this Node for a server verb on an old Node", () => {
    const message = serverNodeProblem('serve', 'v20.20.2');
    expect(message).toMatch(/^sched serve needs Node\.js >=22\.\d+ .*this is Node\.js v20\.20\.2/);
    expect(serverNodeProblem('serve', process.version)).toBeUndefined();
  });

  it('leaves API verbs alone: they run on the Node the CLI itself supports', () => {
    expect(serverNodeProblem('actions', 'v18.0.0')).toBeUndefined();
    expect(serverNodeProblem(undefined, 'v18.0.0')).toBeUndefined();
  });
});
