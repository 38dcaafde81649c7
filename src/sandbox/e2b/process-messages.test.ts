import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { endEventOf, parseProcessEvent, processEventJson, shellExitCode } from './process-messages.ts';
import { isRpcError } from './rpc-error.ts';

describe('envd process messages', () => {
  it('ends like Go: "exit status N", or exit code -1 and "signal: killed"', () => {
    assert.deepEqual(endEventOf({ exitCode: 0, signal: null }), {
      exitCode: 0,
      exited: true,
      status: 'exit status 0',
    });
    assert.deepEqual(endEventOf({ exitCode: 3, signal: null }), {
      exitCode: 3,
      exited: true,
      status: 'exit status 3',
      error: 'exit status 3',
    });
    assert.deepEqual(endEventOf({ exitCode: 137, signal: 'SIGKILL' }), {
      exitCode: -1,
      exited: false,
      status: 'signal: killed',
      error: 'signal: killed',
    });
  });

  it('turns an end back into the shell exit code: 128+N for signal N', () => {
    for (const [signal, code] of [
      ['SIGKILL', 137],
      ['SIGTERM', 143],
      ['SIGSEGV', 139],
      ['SIGINT', 130],
    ] as const) {
      assert.equal(shellExitCode(endEventOf({ exitCode: code, signal })), code, signal);
    }
    assert.equal(shellExitCode({ exitCode: 3, exited: true, status: 'exit status 3' }), 3);
  });

  it('round-trips every event through proto3 JSON, bytes as base64', () => {
    for (const event of [
      { type: 'start', pid: 12 },
      { type: 'data', stream: 'stderr', bytes: Buffer.from([0, 255, 10]) },
      { type: 'end', exitCode: 2, exited: true, status: 'exit status 2', error: 'exit status 2' },
      { type: 'keepalive' },
    ] as const) {
      assert.deepEqual(parseProcessEvent(JSON.parse(JSON.stringify(processEventJson(event)))), event);
    }
  });

  it('reads what other servers send: defaults left out, snake_case names', () => {
    assert.deepEqual(parseProcessEvent({ event: { end: { exited: true, status: 'exit status 0' } } }), {
      type: 'end',
      exitCode: 0,
      exited: true,
      status: 'exit status 0',
    });
    assert.equal(
      (parseProcessEvent({ event: { end: { exit_code: 5 } } }) as { exitCode: number }).exitCode,
      5,
    );
    assert.deepEqual(parseProcessEvent({ event: { start: {} } }), { type: 'start', pid: 0 });
  });

  it('refuses messages that are none of the events', () => {
    for (const bad of [{}, { event: {} }, { event: { start: { pid: -1 } } }, { event: 'x' }]) {
      assert.throws(
        () => parseProcessEvent(bad),
        (e: unknown) => isRpcError(e),
        JSON.stringify(bad),
      );
    }
  });
});
