import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clipMarker, truncateObservation } from './truncate-observation.ts';

describe('truncateObservation', () => {
  it('leaves an observation within the limit untouched', () => {
    assert.equal(truncateObservation('short', 5), 'short');
  });

  it('keeps the head and the tail, says how much is gone, and fits the limit', () => {
    const text = `HEAD${'x'.repeat(20_000)}TAIL`;
    const out = truncateObservation(text, 1000);
    assert.ok(out.length <= 1000, `${out.length} chars`);
    assert.ok(out.startsWith('HEAD'));
    assert.ok(out.endsWith('TAIL'));
    const omitted = Number(/(\d+) characters omitted/.exec(out)?.[1]);
    assert.equal(out.length - clipMarker(omitted).length + omitted, text.length, 'kept + omitted = all');
  });

  it('never splits a surrogate pair at either cut', () => {
    const text = '😀'.repeat(5000);
    for (const max of [400, 401, 402, 403]) {
      const out = truncateObservation(text, max);
      assert.ok(out.length <= max);
      const omitted = Number(/(\d+) characters omitted/.exec(out)?.[1]);
      assert.equal(out.length - clipMarker(omitted).length + omitted, text.length);
      assert.doesNotMatch(out, /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
    }
  });
});
