import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { currentRunId } from '../owner.ts';
import { LABELS } from '../types.ts';
import { isGarbage } from './collect-garbage.ts';

const now = 1_800_000_000_000;
const labels = (run: string, createdAtMs: number, ttlMs: number) => ({
  [LABELS.run]: run,
  [LABELS.createdAt]: String(createdAtMs),
  [LABELS.ttlMs]: String(ttlMs),
});
// pid 999999999 exceeds pid_max, so this run of this host and boot is certainly dead.
const deadRun = currentRunId().replace(/\.\d+\.\d+$/, '.999999999.1');

describe('isGarbage', () => {
  it('keeps a live run within its TTL, removes one past it', () => {
    assert.equal(isGarbage(labels(currentRunId(), now - 1000, 60_000), {}, now), false);
    assert.equal(isGarbage(labels(currentRunId(), now - 61_000, 60_000), {}, now), true);
  });

  it('removes what a dead run left, whatever its TTL', () => {
    assert.equal(isGarbage(labels(deadRun, now, 3_600_000), {}, now), true);
  });

  it('keeps a run of another host until its TTL passes (liveness unknown)', () => {
    assert.equal(isGarbage(labels('otherhost.boot.1.1', now, 60_000), {}, now), false);
    assert.equal(isGarbage(labels('otherhost.boot.1.1', now - 120_000, 60_000), {}, now), true);
  });

  it('removes everything with `all`, live owner or not', () => {
    assert.equal(isGarbage(labels(currentRunId(), now, 3_600_000), { all: true }, now), true);
  });
});
