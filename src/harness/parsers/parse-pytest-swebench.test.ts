import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reportStatuses } from '../test-report.ts';
import { fixtureLog } from '../testing/fixture-log.ts';
import {
  parseMatplotlib,
  parsePytest,
  parsePytestOptions,
  parsePytestV2,
  parseSeaborn,
} from './parse-pytest-swebench.ts';

// The -rA summary of the suite in fixtures/pytest/suite, read by SWE-bench's rule: ids cut at the first
// space, skips absent (their summary line names no test), XPASS absent, the teardown error last and kept.
const SUMMARY = {
  'test_fake.py::not_a_test': 'PASSED', // printed by test_prints; SWE-bench's rule takes it too
  'test_outcomes.py::test_pass': 'PASSED',
  'test_outcomes.py::test_prints': 'PASSED',
  'test_outcomes.py::TestGroup::test_method': 'PASSED',
  'test_outcomes.py::TestGroup::test_param_method[1]': 'PASSED',
  'test_outcomes.py::test_param_values[a': 'PASSED',
  'test_outcomes.py::test_param_values[x[1]]': 'PASSED',
  'test_outcomes.py::test_param_values[[]]': 'PASSED',
  'test_outcomes.py::test_param_values[tab\\tx]': 'PASSED',
  'test_outcomes.py::test_param_values[\\xfcber]': 'PASSED',
  'test_outcomes.py::test_param_ids[with': 'PASSED',
  'test_outcomes.py::test_param_ids[a::b]': 'PASSED',
  'test_fixtures.py::test_teardown_error': 'ERROR',
  'test_outcomes.py::test_xfail': 'XFAIL',
  'test_fixtures.py::test_setup_error': 'ERROR',
  'test_outcomes.py::test_fail': 'FAILED',
  'test_outcomes.py::test_xpass_strict': 'FAILED',
  'test_outcomes.py::TestGroup::test_param_method[2]': 'FAILED',
  'test_outcomes.py::test_param_values[c': 'FAILED',
  'test_outcomes.py::test_param_ids[brackets': 'FAILED',
};

test('pytest -rA, pytest 7.2.1 (bookworm) and 9.0.3: the same ids by SWE-bench rule', () => {
  for (const version of ['7.2.1', '9.0.3']) {
    const report = parsePytest(fixtureLog(`pytest/outcomes-ra.pytest-${version}.log`));
    assert.deepEqual(reportStatuses(report), SUMMARY, version);
    assert.equal(report.get('test_outcomes.py::test_xfail')?.raw, 'XFAIL');
  }
});

test('pytest -rA -s: printed text inside the progress line does not change the summary', () => {
  for (const version of ['7.2.1', '9.0.3']) {
    const report = reportStatuses(
      parsePytest(fixtureLog(`pytest/outcomes-ra-nocapture.pytest-${version}.log`)),
    );
    const { 'test_fake.py::not_a_test': _, ...rest } = SUMMARY;
    assert.deepEqual(report, rest, version);
  }
});

test('a collection error: the module is an ERROR and no test ran', () => {
  for (const version of ['7.2.1', '9.0.3']) {
    const report = reportStatuses(
      parsePytest(fixtureLog(`pytest/collection-error-ra.pytest-${version}.log`)),
    );
    assert.deepEqual(report, { 'test_collect_error.py': 'ERROR' }, version);
  }
});

test('coloured output defeats the summary rule (as in SWE-bench); pytest_v2 strips the colours', () => {
  const log = fixtureLog('pytest/outcomes-ra-color.pytest-9.0.3.log');
  assert.deepEqual(reportStatuses(parsePytest(log)), { 'test_fake.py::not_a_test': 'PASSED' });
  const v2 = reportStatuses(parsePytestV2(log));
  assert.equal(v2['test_outcomes.py::test_param_values[a b]'], 'PASSED');
  assert.equal(v2['test_outcomes.py::test_fail'], 'FAILED');
});

test('pytest_v2 keeps whole ids, and reads classic verbose lines that end with the status', () => {
  const report = reportStatuses(parsePytestV2(fixtureLog('pytest/outcomes-ra-classic.pytest-7.2.1.log')));
  assert.equal(report['test_outcomes.py::test_param_values[c - d]'], 'FAILED', 'from the verbose line');
  assert.equal(report['test_outcomes.py::test_param_ids[with space]'], 'PASSED');
  assert.equal(report['test_outcomes.py::test_param_ids[brackets [x]]'], 'FAILED');
  // Non-FAILED summary lines keep their " - reason" in the id, as in SWE-bench 5.
  assert.equal(report['test_outcomes.py::test_xfail - known bug 12'], 'XFAIL');
  assert.equal(report['test_fixtures.py::test_setup_error - RuntimeError: setup exploded'], 'ERROR');
  // The teardown error's PASSED summary line is read after its ERROR progress line.
  assert.equal(report['test_fixtures.py::test_teardown_error'], 'PASSED');
  assert.equal(report['test_outcomes.py::test_skip'], undefined, 'skips end with their reason, not a status');
});

test('pytest_options shortens absolute-path parameters to their last component', () => {
  const log = [
    'PASSED tests/test_requests.py::test_path[/home/user/repo/data/file.txt]',
    'PASSED tests/test_requests.py::test_glob[/tmp/*.txt]',
    'FAILED tests/test_requests.py::test_url[//host/x] - AssertionError',
    'PASSED tests/test_requests.py::test_plain',
  ].join('\n');
  assert.deepEqual(reportStatuses(parsePytestOptions(log)), {
    'tests/test_requests.py::test_path[/file.txt]': 'PASSED',
    'tests/test_requests.py::test_glob[/tmp/*.txt]': 'PASSED',
    'tests/test_requests.py::test_url[//host/x]': 'FAILED',
    'tests/test_requests.py::test_plain': 'PASSED',
  });
});

test('matplotlib spells mouse buttons as numbers; seaborn reads "id PASSED" verbose lines', () => {
  assert.deepEqual(reportStatuses(parseMatplotlib('PASSED lib/test_x.py::test_click[MouseButton.LEFT]')), {
    'lib/test_x.py::test_click[1]': 'PASSED',
  });
  const seaborn = 'tests/test_core.py::test_a PASSED [ 50%]\nFAILED tests/test_core.py::test_b - boom\n';
  assert.deepEqual(reportStatuses(parseSeaborn(seaborn)), {
    'tests/test_core.py::test_a': 'PASSED',
    'tests/test_core.py::test_b': 'FAILED',
  });
});
