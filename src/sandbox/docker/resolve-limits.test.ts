import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isConfigError } from '../../errors.ts';
import { DEFAULT_LIMITS } from '../types.ts';
import { resolveLimits } from './resolve-limits.ts';

describe('resolveLimits', () => {
  it('fills the defaults and keeps what is given', () => {
    assert.deepEqual(resolveLimits(), DEFAULT_LIMITS);
    assert.deepEqual(resolveLimits({ pids: 64, cpus: 0.5 }), { ...DEFAULT_LIMITS, pids: 64, cpus: 0.5 });
  });

  for (const [limits, pattern] of [
    [{ memoryBytes: -1 }, /limits\.memoryBytes must be .*at least 6291456.*got -1/],
    [{ memoryBytes: 1.5e9 + 0.5 }, /memoryBytes/],
    [{ pids: 2 }, /limits\.pids must be an integer of at least 8, got 2/],
    [{ cpus: 0 }, /limits\.cpus/],
    [{ cpus: Number.NaN }, /limits\.cpus/],
    [{ diskBytes: 0 }, /limits\.diskBytes/],
    [{ outputBytes: -5 }, /limits\.outputBytes/],
  ] as const) {
    it(`refuses ${JSON.stringify(limits)}`, () => {
      assert.throws(
        () => resolveLimits(limits),
        (e: unknown) => isConfigError(e) && pattern.test(e.message),
      );
    });
  }

  it('bounds cpus by the host and names unknown keys (typos)', () => {
    assert.throws(() => resolveLimits({ cpus: 3 }, 2), /at most the 2 cores/);
    assert.throws(
      () => resolveLimits({ memoryByte: 1 } as never),
      /unknown sandbox limit "memoryByte"; valid limits: memoryBytes, pids, cpus, diskBytes, outputBytes/,
    );
  });
});
