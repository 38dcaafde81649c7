import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ExecResult } from '../types.ts';
import { engineCouldNotStart } from './run-exec.ts';

const result = (exitCode: number, stderr: string): ExecResult => ({
  exitCode,
  stdout: '',
  stderr,
  timedOut: false,
  truncated: false,
  durationMs: 5,
});

describe('engineCouldNotStart', () => {
  it("is the runtime's failure to start the process, seen with a fork bomb holding the process limit", () => {
    const reset =
      'OCI runtime exec failed: exec failed: unable to start container process: read init-p: connection reset by peer: unknown\r\n';
    assert.equal(engineCouldNotStart(result(126, reset)), true);
    assert.equal(
      engineCouldNotStart(
        result(126, 'OCI runtime exec failed: fork/exec /proc/self/exe: resource temporarily unavailable'),
      ),
      true,
    );
  });

  it("is not the command's own result: a missing executable, a command that printed the words, another code", () => {
    const missing =
      'OCI runtime exec failed: exec failed: unable to start container process: exec: "nope": executable file not found in $PATH: unknown\r\n';
    assert.equal(engineCouldNotStart(result(126, missing)), false);
    assert.equal(engineCouldNotStart(result(1, 'read init-p: connection reset by peer')), false);
    assert.equal(engineCouldNotStart(result(126, 'sh: read init-p: connection reset by peer')), false);
  });
});
