import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reportStatuses } from '../test-report.ts';
import { fixtureLog } from '../testing/fixture-log.ts';
import { parseUnittest } from './parse-unittest.ts';

const EXPECTED = {
  'test_outcomes.BrokenSetUpClass.setUpClass': 'ERROR',
  'test_outcomes.BrokenTearDown.test_body_passes': 'ERROR',
  'test_outcomes.Outcomes.test_docstring': 'PASSED',
  'test_outcomes.Outcomes.test_error': 'ERROR',
  'test_outcomes.Outcomes.test_expected_failure': 'XFAIL',
  'test_outcomes.Outcomes.test_fail': 'FAILED',
  'test_outcomes.Outcomes.test_ok': 'PASSED',
  'test_outcomes.Outcomes.test_prints_lines': 'PASSED',
  'test_outcomes.Outcomes.test_prints_partial_line': 'PASSED',
  'test_outcomes.Outcomes.test_skip': 'SKIPPED',
  'test_outcomes.Outcomes.test_subtests': 'FAILED',
  'test_outcomes.Outcomes.test_unexpected_success': 'FAILED',
  'unittest.loader._FailedTest.test_import_error': 'ERROR',
};

test('python -m unittest -v on 3.8, 3.11 and 3.13: the same ids and statuses', () => {
  for (const version of ['3.8.18', '3.11.2', '3.13.0']) {
    const report = parseUnittest(fixtureLog(`unittest/outcomes-verbose.python-${version}.log`));
    assert.deepEqual(reportStatuses(report), EXPECTED, version);
    assert.equal(report.get('test_outcomes.Outcomes.test_skip')?.raw, "skipped 'not today'");
    assert.equal(report.get('test_outcomes.BrokenSetUpClass.test_never_runs'), undefined);
  }
});

test("Django's runner output reads as unittest, interleaved output included", () => {
  for (const version of ['3.9.18', '3.11.2']) {
    const report = reportStatuses(
      parseUnittest(fixtureLog(`django/outcomes-verbose.django-3.2.25.python-${version}.log`)),
    );
    assert.deepEqual(report, {
      'shop.tests.ItemTests.test_create': 'PASSED',
      'shop.tests.ItemTests.test_docstring': 'PASSED',
      'shop.tests.ItemTests.test_error': 'ERROR',
      'shop.tests.ItemTests.test_expected_failure': 'XFAIL',
      'shop.tests.ItemTests.test_fail': 'FAILED',
      'shop.tests.ItemTests.test_skip': 'SKIPPED',
      'shop.tests.CommandTests.test_check_command': 'PASSED',
      'shop.tests.CommandTests.test_server_error': 'PASSED',
    });
  }
});

test('a test that prints "ok" and then fails is FAILED: the last status before the next test wins', () => {
  const log = 'test_a (m.T.test_a) ... ok\nFAIL\ntest_b (m.T.test_b) ... book\nok\n';
  assert.deepEqual(reportStatuses(parseUnittest(log)), { 'm.T.test_a': 'FAILED', 'm.T.test_b': 'PASSED' });
});
