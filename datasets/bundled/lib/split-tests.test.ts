import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestStatus } from './pytest-log.ts';
import { isResolved, splitTests } from './split-tests.ts';

const statuses = (entries: [string, TestStatus][]) => new Map(entries);

test('FAIL_TO_PASS fail (or are missing) before and pass after; the rest pass in both', () => {
  const before = statuses([
    ['t::a', 'PASSED'],
    ['t::b', 'FAILED'],
    ['t::c', 'ERROR'],
    ['t::d', 'XFAIL'],
  ]);
  const after = statuses([
    ['t::a', 'PASSED'],
    ['t::b', 'PASSED'],
    ['t::c', 'PASSED'],
    ['t::d', 'PASSED'],
    ['t::new', 'PASSED'],
  ]);
  assert.deepEqual(splitTests(before, after, 'x'), {
    failToPass: ['t::b', 't::c', 't::new'],
    passToPass: ['t::a', 't::d'],
  });
});

test('a gold run with any non-passing test is refused, naming it', () => {
  assert.throws(
    () => splitTests(statuses([]), statuses([['t::a', 'XFAIL']]), 'sandgym__p-0001'),
    /sandgym__p-0001: with the gold patch these tests do not pass:\n {2}XFAIL t::a/,
  );
});

test('a test that disappears after the gold patch is refused', () => {
  assert.throws(
    () => splitTests(statuses([['t::gone', 'PASSED']]), statuses([['t::a', 'PASSED']]), 'x'),
    /before the gold patch but not after it: t::gone/,
  );
});

test('isResolved follows SWE-bench: XFAIL passes, missing fails, empty lists hold', () => {
  const run = statuses([
    ['t::a', 'PASSED'],
    ['t::b', 'XFAIL'],
    ['t::c', 'XPASS'],
  ]);
  assert.equal(isResolved(run, ['t::a'], ['t::b']), true);
  assert.equal(isResolved(run, ['t::c'], []), false);
  assert.equal(isResolved(run, ['t::missing'], []), false);
  assert.equal(isResolved(run, [], []), true);
});
