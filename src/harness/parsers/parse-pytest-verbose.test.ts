import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reportStatuses } from '../test-report.ts';
import { fixtureLog } from '../testing/fixture-log.ts';
import { parsePytestVerbose } from './parse-pytest-verbose.ts';

const EXPECTED = {
  'test_outcomes.py::test_pass': 'PASSED',
  'test_outcomes.py::test_fail': 'FAILED',
  'test_outcomes.py::test_prints': 'PASSED',
  'test_outcomes.py::test_skip': 'SKIPPED',
  'test_outcomes.py::test_skipif': 'SKIPPED',
  'test_outcomes.py::test_skip_at_runtime': 'SKIPPED',
  'test_outcomes.py::test_xfail': 'XFAIL',
  'test_outcomes.py::test_xpass': 'FAILED',
  'test_outcomes.py::test_xpass_strict': 'FAILED',
  'test_outcomes.py::TestGroup::test_method': 'PASSED',
  'test_outcomes.py::TestGroup::test_param_method[1]': 'PASSED',
  'test_outcomes.py::TestGroup::test_param_method[2]': 'FAILED',
  'test_outcomes.py::test_param_values[a b]': 'PASSED',
  'test_outcomes.py::test_param_values[x[1]]': 'PASSED',
  'test_outcomes.py::test_param_values[[]]': 'PASSED',
  'test_outcomes.py::test_param_values[c - d]': 'FAILED',
  'test_outcomes.py::test_param_values[tab\\tx]': 'PASSED',
  'test_outcomes.py::test_param_values[\\xfcber]': 'PASSED',
  'test_outcomes.py::test_param_ids[with space]': 'PASSED',
  'test_outcomes.py::test_param_ids[brackets [x]]': 'FAILED',
  'test_outcomes.py::test_param_ids[a::b]': 'PASSED',
  'test_fixtures.py::test_setup_error': 'ERROR',
  'test_fixtures.py::test_teardown_error': 'ERROR',
};

test('pytest -v progress lines: whole ids, every outcome, the teardown error wins', () => {
  for (const version of ['7.2.1', '9.0.3']) {
    const report = parsePytestVerbose(fixtureLog(`pytest/outcomes-verbose.pytest-${version}.log`));
    assert.deepEqual(reportStatuses(report), EXPECTED, version);
    assert.equal(report.get('test_outcomes.py::test_xpass')?.raw, 'XPASS');
  }
});

test('classic progress lines (no percentages) read the same', () => {
  const report = reportStatuses(
    parsePytestVerbose(fixtureLog('pytest/outcomes-ra-classic.pytest-9.0.3.log')),
  );
  assert.deepEqual(report, EXPECTED);
});

test('a -rA summary alone gives nothing: it is not a progress line', () => {
  assert.equal(parsePytestVerbose(fixtureLog('pytest/outcomes-ra.pytest-9.0.3.log')).size, 0);
});
