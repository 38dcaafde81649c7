import { Writable } from 'node:stream';

/**
 * The stdin of a command spawned without one (`stdin: false`): closed from the start, so a write fails
 * as it would on a closed pipe, and the failure is not a crash for a caller without an error listener.
 */
export function closedStdin(): Writable {
  const stdin = new Writable({ write: (_chunk, _encoding, done) => done() });
  stdin.on('error', () => {});
  stdin.end();
  return stdin;
}
