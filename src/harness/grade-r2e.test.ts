import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gradeR2e } from './grade-r2e.ts';
import { getLogParser } from './log-parsers.ts';
import { fixtureLog } from './testing/fixture-log.ts';

const parser = getLogParser('r2e_pytest');
const wrap = (body: string) => `+ : '>>>>> Start Test Output'\n${body}\n+ : '>>>>> End Test Output'\n`;
const LOG = wrap(fixtureLog('pytest/outcomes-ra.pytest-7.2.1.log'));

// Exactly what R2E-Gym's parser reads from that log.
const EXPECTED: Record<string, string> = {
  test_pass: 'PASSED',
  test_prints: 'PASSED',
  'TestGroup.test_method': 'PASSED',
  'TestGroup.test_param_method[1]': 'PASSED',
  'test_param_values[a b]': 'PASSED',
  'test_param_values[x[1]]': 'PASSED',
  'test_param_values[[]]': 'PASSED',
  'test_param_values[tab\\tx]': 'PASSED',
  'test_param_values[\\xfcber]': 'PASSED',
  'test_param_ids[with space]': 'PASSED',
  'test_param_ids[a.b]': 'PASSED',
  test_teardown_error: 'ERROR',
  test_setup_error: 'ERROR',
  test_fail: 'FAILED',
  test_xpass_strict: 'FAILED',
  'TestGroup.test_param_method[2]': 'FAILED',
  'test_param_values[c': 'FAILED',
  'test_param_ids[brackets [x]]': 'FAILED',
};

test('resolved only on an exact match, expected failures included', () => {
  const { grade } = gradeR2e(LOG, parser, EXPECTED);
  assert.equal(grade.status, 'resolved');
  assert.deepEqual(grade.mismatches, []);
});

test('a different status, a missing test or an extra test is unresolved', () => {
  const { test_fail: _, ...missing } = EXPECTED;
  const cases: [Record<string, string>, { test: string; expected: string | null; actual: string | null }][] =
    [
      [
        { ...EXPECTED, test_fail: 'PASSED' },
        { test: 'test_fail', expected: 'PASSED', actual: 'FAILED' },
      ],
      [missing, { test: 'test_fail', expected: null, actual: 'FAILED' }],
      [
        { ...EXPECTED, test_new: 'PASSED' },
        { test: 'test_new', expected: 'PASSED', actual: null },
      ],
    ];
  for (const [expected, mismatch] of cases) {
    const { grade } = gradeR2e(LOG, parser, expected);
    assert.equal(grade.status, 'unresolved');
    assert.deepEqual(grade.mismatches, [mismatch]);
  }
});

test('names are compared as R2E-Gym normalizes them: no colour codes, no " - message"', () => {
  const { grade } = gradeR2e(LOG, parser, {
    ...EXPECTED,
    'test_param_values[c': 'FAILED',
    '\x1b[1mtest_pass\x1b[0m - note': 'PASSED',
  });
  assert.equal(grade.status, 'resolved');
});

test('a run that timed out or never reached the tests is an error', () => {
  assert.equal(
    gradeR2e(`${LOG}>>>>> Tests Timed Out after 300000 ms\n`, parser, EXPECTED).grade.error,
    'tests_timed_out',
  );
  assert.equal(
    gradeR2e('bash: run_tests.sh: No such file or directory', parser, EXPECTED).grade.error,
    'no_test_output',
  );
});
