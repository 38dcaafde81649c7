import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LABELS } from '../types.ts';
import {
  IMAGE_KIND_LABEL,
  imageLabels,
  parseOwnerLabels,
  sandboxLabels,
  userLabels,
} from './sandbox-labels.ts';

describe('sandbox labels', () => {
  const owner = { runId: 'h.b.1.2', createdAtMs: 1700000000000, ttlMs: 60_000 };

  it('adds owner, creation time and TTL to the user labels, and parses them back', () => {
    const labels = sandboxLabels(owner, { team: 'rl' });
    assert.deepEqual(labels, {
      team: 'rl',
      [LABELS.run]: 'h.b.1.2',
      [LABELS.createdAt]: '1700000000000',
      [LABELS.ttlMs]: '60000',
    });
    assert.deepEqual(parseOwnerLabels(labels), { run: 'h.b.1.2', createdAtMs: 1700000000000, ttlMs: 60_000 });
    assert.deepEqual(userLabels({ ...labels, [IMAGE_KIND_LABEL]: 'fork' }), { team: 'rl' });
  });

  it("refuses to let a user label overwrite sandgym's own", () => {
    assert.throws(
      () => sandboxLabels(owner, { [LABELS.run]: 'x' }),
      /label "sandgym.run" is set by sandgym itself/,
    );
  });

  it('blanks ownership on snapshot images and keeps it on fork images', () => {
    assert.deepEqual(imageLabels('snapshot'), {
      [IMAGE_KIND_LABEL]: 'snapshot',
      [LABELS.run]: '',
      [LABELS.createdAt]: '',
      [LABELS.ttlMs]: '',
    });
    assert.equal(imageLabels('fork', owner)[LABELS.run], 'h.b.1.2');
    assert.deepEqual(parseOwnerLabels(imageLabels('snapshot')), {});
  });

  it('ignores malformed numbers', () => {
    assert.deepEqual(parseOwnerLabels({ [LABELS.createdAt]: 'soon', [LABELS.ttlMs]: '-1' }), {});
  });
});
