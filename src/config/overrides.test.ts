import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isConfigError } from '../errors.ts';
import { applyOverride, deepMerge, parseOverride } from './overrides.ts';

describe('parseOverride', () => {
  it('parses YAML scalars and flow collections', () => {
    assert.deepEqual(parseOverride('rollout.n=8'), { path: ['rollout', 'n'], value: 8, add: false });
    assert.deepEqual(parseOverride('a.b=true').value, true);
    assert.deepEqual(parseOverride('a.b=null').value, null);
    assert.deepEqual(parseOverride('a.b=[1, 2]').value, [1, 2]);
    assert.deepEqual(parseOverride('a.b={x: 1}').value, { x: 1 });
    assert.deepEqual(parseOverride('a.b=grpo').value, 'grpo');
    assert.deepEqual(parseOverride('a.b=').value, '');
    assert.deepEqual(parseOverride('a.b=x=y').value, 'x=y');
  });

  it('marks +key as an addition', () => {
    assert.deepEqual(parseOverride('+new.key=1'), { path: ['new', 'key'], value: 1, add: true });
  });

  it('rejects malformed overrides with the override in the message', () => {
    for (const bad of ['novalue', '=3', 'a..b=1']) {
      assert.throws(
        () => parseOverride(bad),
        (e: unknown) => isConfigError(e) && e.message.includes(bad),
      );
    }
  });
});

describe('applyOverride', () => {
  it('sets existing keys and refuses unknown ones, listing the known keys', () => {
    const tree: Record<string, unknown> = { rollout: { n: 4, temperature: 1 } };
    applyOverride(tree, parseOverride('rollout.n=8'));
    assert.deepEqual(tree, { rollout: { n: 8, temperature: 1 } });
    assert.throws(
      () => applyOverride(tree, parseOverride('rollout.m=8')),
      (e: unknown) =>
        isConfigError(e) && /unknown key "rollout.m".*known: n, temperature.*\+rollout\.m/.test(e.message),
    );
  });

  it('adds new keys and sections with +', () => {
    const tree: Record<string, unknown> = { rollout: { n: 4 } };
    applyOverride(tree, parseOverride('+extra.deep.key=v'));
    assert.deepEqual(tree, { rollout: { n: 4 }, extra: { deep: { key: 'v' } } });
  });

  it('refuses to descend into a value', () => {
    const tree: Record<string, unknown> = { rollout: { n: 4 } };
    assert.throws(() => applyOverride(tree, parseOverride('rollout.n.x=1')), /is a value, not a section/);
  });
});

describe('deepMerge', () => {
  it('merges objects and replaces everything else', () => {
    assert.deepEqual(deepMerge({ a: { b: 1, c: [1] }, d: 1 }, { a: { c: [2] }, e: 2 }), {
      a: { b: 1, c: [2] },
      d: 1,
      e: 2,
    });
  });
});
