import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HostBudget, hostCaps, sandboxNeeds } from './host-budget.ts';

const GiB = 1024 ** 3;

describe('host-wide caps of sandgym serve', () => {
  it('come from the host: half the kernel pid table, memory and free disk with overcommit', () => {
    const caps = hostCaps({ totalMemoryBytes: 24 * GiB, pidCapacity: 32_768, freeDiskBytes: 100 * GiB });
    assert.deepEqual(caps, { sandboxes: 384, memoryBytes: 96 * GiB, pids: 16_384, diskBytes: 400 * GiB });
  });

  it('refuse what would pass a cap, naming it; room comes back when a sandbox ends', () => {
    const budget = new HostBudget({ sandboxes: 10, memoryBytes: 10 * GiB, pids: 1000, diskBytes: 100 * GiB });
    const needs = sandboxNeeds({ pids: 400, memoryBytes: GiB });
    assert.equal(budget.acquire(needs), undefined);
    budget.hold('a', needs);
    assert.equal(budget.acquire(needs), undefined);
    budget.hold('b', needs);
    const refusal = budget.acquire(needs);
    assert.match(refusal!.message, /host is full.*1200 processes.*cap of 1000 processes.*all keys together/);
    assert.match(budget.acquire(sandboxNeeds({ pids: 8, memoryBytes: 9 * GiB }))!.message, /GiB of memory/);
    budget.end('a');
    budget.end('a');
    assert.equal(budget.acquire(needs), undefined, 'an ended sandbox gives its room back, once');
    assert.ok(budget.acquire(sandboxNeeds({ pids: 8 }), 8), 'a fork of 8 is refused as a whole');
  });
});
