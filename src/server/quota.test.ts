import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Quotas } from './quota.ts';

describe('per-key quotas', () => {
  it('caps sandboxes alive at once, per key, and frees slots on release', () => {
    const q = new Quotas({ maxSandboxes: 2, createsPerSecond: 100 }, () => 0);
    assert.equal(q.acquire('a'), undefined);
    assert.equal(q.acquire('a'), undefined);
    assert.match(q.acquire('a')?.message ?? '', /2 sandboxes of its quota of 2/);
    assert.equal(q.acquire('b'), undefined, 'another key has its own quota');
    q.release('a');
    assert.equal(q.acquire('a'), undefined);
    assert.match(q.acquire('a', 5)?.message ?? '', /quota/);
  });

  it('paces creates with a bucket of one second, refilled over time', () => {
    let now = 0;
    const q = new Quotas({ maxSandboxes: 100, createsPerSecond: 2 }, () => now);
    assert.equal(q.acquire('a'), undefined);
    assert.equal(q.acquire('a'), undefined);
    const refused = q.acquire('a');
    assert.match(refused?.message ?? '', /2 per second/);
    assert.equal(refused?.retryAfterS, 1);
    now = 500;
    assert.equal(q.acquire('a'), undefined, 'half a second earns one create');
    assert.ok(q.acquire('a'));
    assert.equal(q.live('a'), 3);
  });
});
