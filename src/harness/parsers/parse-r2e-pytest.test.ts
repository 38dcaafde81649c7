import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reportStatuses } from '../test-report.ts';
import { fixtureLog } from '../testing/fixture-log.ts';
import { parseR2ePytest } from './parse-r2e-pytest.ts';

test("R2E-Gym's rule: the summary only, ids without their file, '::' joined with '.'", () => {
  const expected = {
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
  for (const version of ['7.2.1', '9.0.3']) {
    assert.deepEqual(
      reportStatuses(parseR2ePytest(fixtureLog(`pytest/outcomes-ra.pytest-${version}.log`))),
      expected,
    );
  }
  // With colours, R2E-Gym's runtime strips them before parsing, and so does this parser.
  assert.deepEqual(
    reportStatuses(parseR2ePytest(fixtureLog('pytest/outcomes-ra-color.pytest-9.0.3.log'))),
    expected,
  );
});

test('no summary, no results; a collection error is an ERROR with an empty name', () => {
  assert.equal(
    parseR2ePytest(fixtureLog('pytest/outcomes-verbose.pytest-9.0.3.log').split('short test')[0]!).size,
    0,
  );
  assert.deepEqual(
    reportStatuses(parseR2ePytest(fixtureLog('pytest/collection-error-ra.pytest-9.0.3.log'))),
    {
      '': 'ERROR',
    },
  );
});
