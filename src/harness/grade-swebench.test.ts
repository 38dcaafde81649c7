import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gradeSwebench, type SwebenchExpectations } from './grade-swebench.ts';
import { getLogParser } from './log-parsers.ts';
import { fixtureLog } from './testing/fixture-log.ts';

/** A real pytest log wrapped as the eval script prints it (set -x traces the marker lines). */
function evalLog(body: string, exitCode: number | null = 1): string {
  const tail =
    exitCode === null
      ? ''
      : `+ echo '>>>>> Test Exit Code: ${exitCode}'\n>>>>> Test Exit Code: ${exitCode}\n`;
  return `+ git apply -v /tmp/test.patch\n+ : '>>>>> Start Test Output'\n${body}+ SWEBENCH_TEST_EXIT_CODE=${exitCode}\n+ : '>>>>> End Test Output'\n${tail}`;
}

const RA = evalLog(fixtureLog('pytest/outcomes-ra.pytest-7.2.1.log'));
const pytest = getLogParser('pytest');
const expect = (
  f2p: string[],
  p2p: string[] = [],
  evalType: SwebenchExpectations['evalType'] = 'pass_and_fail',
) => ({
  FAIL_TO_PASS: f2p,
  PASS_TO_PASS: p2p,
  evalType,
});

test('resolved: every FAIL_TO_PASS and PASS_TO_PASS test passes; XFAIL counts as passing', () => {
  const { grade, report } = gradeSwebench(
    RA,
    pytest,
    expect(
      ['test_outcomes.py::test_pass', 'test_outcomes.py::test_xfail'],
      ['test_outcomes.py::TestGroup::test_method'],
    ),
  );
  assert.equal(grade.status, 'resolved');
  assert.equal(grade.resolution, 'RESOLVED_FULL');
  assert.deepEqual(grade.f2p, {
    passed: ['test_outcomes.py::test_pass', 'test_outcomes.py::test_xfail'],
    failed: [],
  });
  assert.equal(report.get('test_outcomes.py::test_fail')?.status, 'FAILED');
  assert.match(grade.reason, /FAIL_TO_PASS 2\/2, PASS_TO_PASS 1\/1/);
});

test('partial and no resolution; absent, FAILED and ERROR tests fail', () => {
  const partial = gradeSwebench(
    RA,
    pytest,
    expect(['test_outcomes.py::test_pass', 'test_outcomes.py::test_fail']),
  ).grade;
  assert.deepEqual([partial.status, partial.resolution], ['unresolved', 'RESOLVED_PARTIAL']);
  const regressed = gradeSwebench(
    RA,
    pytest,
    expect(
      ['test_outcomes.py::test_pass', 'test_outcomes.py::test_fail'],
      ['test_fixtures.py::test_setup_error'],
    ),
  ).grade;
  assert.equal(regressed.resolution, 'RESOLVED_NO', 'PARTIAL needs every PASS_TO_PASS test');
  const missing = gradeSwebench(RA, pytest, expect(['test_outcomes.py::test_not_there'])).grade;
  assert.deepEqual(missing.f2p, { passed: [], failed: ['test_outcomes.py::test_not_there'] });
  assert.match(missing.reason, /failing: test_outcomes\.py::test_not_there/);
  const teardown = gradeSwebench(RA, pytest, expect([], ['test_fixtures.py::test_teardown_error'])).grade;
  assert.equal(teardown.status, 'unresolved', 'an error in teardown fails the test');
});

test('empty lists are satisfied', () => {
  assert.equal(gradeSwebench(RA, pytest, expect([], [])).grade.status, 'resolved');
});

test('SWE-bench 5: a skipped FAIL_TO_PASS test fails, a skipped PASS_TO_PASS test is kept', () => {
  const log = evalLog(fixtureLog('pytest/outcomes-verbose.pytest-9.0.3.log'));
  const verbose = getLogParser('pytest_verbose');
  assert.equal(
    gradeSwebench(log, verbose, expect(['test_outcomes.py::test_skip'])).grade.status,
    'unresolved',
  );
  const kept = gradeSwebench(
    log,
    verbose,
    expect(['test_outcomes.py::test_pass'], ['test_outcomes.py::test_skip']),
  );
  assert.equal(kept.grade.status, 'resolved');
});

test('ids cut inside their parameters match when the candidates agree', () => {
  const log = evalLog(fixtureLog('pytest/outcomes-ra-classic.pytest-9.0.3.log'));
  const v2 = getLogParser('pytest_v2');
  const cut = gradeSwebench(log, v2, expect(['test_outcomes.py::test_param_ids[with'])).grade;
  assert.equal(cut.status, 'resolved', '"[with" matches "[with space]"');
  const ambiguous = gradeSwebench(log, v2, expect(['test_outcomes.py::test_param_values['])).grade;
  assert.equal(ambiguous.status, 'unresolved', 'passing and failing candidates: no match');
  const closed = gradeSwebench(log, v2, expect(['test_outcomes.py::test_param_ids[with]'])).grade;
  assert.equal(closed.status, 'unresolved', 'balanced brackets never prefix-match');
});

test('fail-only: every test passes unless the log says FAILED', () => {
  const grade = gradeSwebench(
    RA,
    pytest,
    expect(['absent', 'test_fixtures.py::test_setup_error'], [], 'fail_only'),
  ).grade;
  assert.equal(grade.status, 'resolved');
  assert.equal(
    gradeSwebench(RA, pytest, expect(['test_outcomes.py::test_fail'], [], 'fail_only')).grade.status,
    'unresolved',
  );
});

test('failure markers and missing markers make an error, never a score', () => {
  const cases: [string, string][] = [
    ['>>>>> Patch Apply Failed:\nerror: patch failed', 'patch_apply_failed'],
    ['>>>>> Reset Failed', 'reset_failed'],
    ['>>>>> Tests Errored', 'tests_errored'],
    ['>>>>> Tests Timed Out after 1800000 ms', 'tests_timed_out'],
  ];
  for (const [marker, error] of cases) {
    const { grade } = gradeSwebench(`${RA}\n${marker}\n`, pytest, expect(['test_outcomes.py::test_pass']));
    assert.deepEqual([grade.status, grade.error], ['error', error]);
  }
  const noMarkers = gradeSwebench(
    fixtureLog('pytest/outcomes-ra.pytest-7.2.1.log'),
    pytest,
    expect([]),
  ).grade;
  assert.deepEqual([noMarkers.status, noMarkers.error], ['error', 'no_test_output']);
});

test('no parsed result and no sign the runner ran is unresolved; results outside the markers are read', () => {
  const empty = gradeSwebench(evalLog('ImportError while loading conftest\n'), pytest, expect([], [])).grade;
  assert.equal(empty.status, 'unresolved');
  assert.match(empty.reason, /no test results/);
  const outside = `${evalLog('', 0)}PASSED tests/test_a.py::test_x\n`;
  assert.equal(gradeSwebench(outside, pytest, expect(['tests/test_a.py::test_x'])).grade.status, 'resolved');
});

test('results printed by the patch while the test command failed are not trusted', () => {
  const spoof = evalLog('PASSED tests/test_a.py::test_x\nPASSED tests/test_a.py::test_y\n', 2);
  const grade = gradeSwebench(spoof, pytest, expect(['tests/test_a.py::test_x'])).grade;
  assert.equal(grade.status, 'unresolved');
  assert.match(grade.reason, /exited 2 but the log reports no failure/);
  const honest = evalLog('PASSED tests/test_a.py::test_x\n', 0);
  assert.equal(gradeSwebench(honest, pytest, expect(['tests/test_a.py::test_x'])).grade.status, 'resolved');
  const unrecorded = evalLog('PASSED tests/test_a.py::test_x\n', null);
  assert.equal(
    gradeSwebench(unrecorded, pytest, expect(['tests/test_a.py::test_x'])).grade.status,
    'resolved',
  );
});
