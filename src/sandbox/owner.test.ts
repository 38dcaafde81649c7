import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  bootId,
  currentRunId,
  formatRunId,
  hostId,
  isOrphan,
  parseRunId,
  processStartTicks,
  runLiveness,
} from './owner.ts';

describe('run ownership', () => {
  it('round-trips a run id', () => {
    const o = { host: 'abc', boot: 'def', pid: 42, start: 7 };
    assert.deepEqual(parseRunId(formatRunId(o)), o);
    assert.equal(parseRunId('garbage'), undefined);
  });

  it('sees this process as alive', () => {
    assert.equal(runLiveness(currentRunId()), 'alive');
  });

  it('sees an exited process, a reused pid and an earlier boot as dead', async () => {
    const child = spawn('true');
    const pid = child.pid!;
    await new Promise((r) => child.on('exit', r));
    assert.equal(runLiveness(formatRunId({ host: hostId(), boot: bootId(), pid, start: 1 })), 'dead');
    const self = { host: hostId(), boot: bootId(), pid: process.pid, start: processStartTicks(process.pid)! };
    assert.equal(
      runLiveness(formatRunId({ ...self, start: self.start + 1 })),
      'dead',
      'pid reused by another process',
    );
    assert.equal(runLiveness(formatRunId({ ...self, boot: 'otherboot' })), 'dead');
  });

  it('sees a zombie (exited, not yet reaped) as gone', async () => {
    // The shell's background child exits after the shell has become `sleep`, which never reaps it.
    const parent = spawn('/bin/sh', ['-c', 'sleep 0.5 & echo $!; exec sleep 10'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const pid = Number(
      await new Promise<string>((r) => parent.stdout!.once('data', (b: Buffer) => r(b.toString()))),
    );
    try {
      for (let i = 0; i < 500 && processStartTicks(pid) !== undefined; i++)
        await new Promise((r) => setTimeout(r, 10));
      assert.equal(processStartTicks(pid), undefined);
      assert.ok(existsSync(`/proc/${pid}`), 'the zombie is still there');
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('cannot tell for another host', () => {
    assert.equal(runLiveness(formatRunId({ host: 'otherhost', boot: 'b', pid: 1, start: 1 })), 'unknown');
  });

  it('treats expired TTLs and dead owners as orphans, live owners within TTL as not', () => {
    const now = 1_000_000;
    assert.equal(isOrphan({ run: currentRunId(), createdAtMs: now - 10, ttlMs: 100 }, now), false);
    assert.equal(isOrphan({ run: currentRunId(), createdAtMs: now - 200, ttlMs: 100 }, now), true);
    assert.equal(isOrphan({ run: 'otherhost.b.1.1', createdAtMs: now - 10, ttlMs: 100 }, now), false);
    assert.equal(isOrphan({ run: `${hostId()}.${bootId()}.999999999.1` }, now), true);
  });
});
