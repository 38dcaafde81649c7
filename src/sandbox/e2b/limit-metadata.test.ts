import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isConfigError } from '../../errors.ts';
import { DEFAULT_LIMITS } from '../types.ts';
import { LIMIT_METADATA, limitsFromMetadata, limitsToMetadata, resolveLimits } from './limit-metadata.ts';

describe('limits as metadata', () => {
  it('round-trips the enforced limits (not the client-side output cap)', () => {
    const limits = resolveLimits({ memoryBytes: 128 * 1024 * 1024, pids: 64, cpus: 0.5 });
    const metadata = limitsToMetadata(limits);
    assert.equal(metadata[LIMIT_METADATA.pids], '64');
    assert.equal(Object.keys(metadata).length, 4);
    assert.deepEqual(limitsFromMetadata({ ...metadata, unrelated: 'x' }), {
      memoryBytes: 128 * 1024 * 1024,
      pids: 64,
      cpus: 0.5,
      diskBytes: DEFAULT_LIMITS.diskBytes,
    });
  });

  it('names the bad limit', () => {
    assert.throws(
      () => resolveLimits({ memoryBytes: -1 }),
      (e: unknown) => isConfigError(e) && /memoryBytes/.test(e.message),
    );
    assert.throws(
      () => resolveLimits({ pids: 1.5 }),
      (e: unknown) => isConfigError(e) && /pids/.test(e.message),
    );
    for (const value of ['', 'lots', '3']) {
      assert.throws(
        () => limitsFromMetadata({ [LIMIT_METADATA.memoryBytes]: value }),
        (e: unknown) => isConfigError(e) && e.message.includes(LIMIT_METADATA.memoryBytes),
        value,
      );
    }
  });
});
