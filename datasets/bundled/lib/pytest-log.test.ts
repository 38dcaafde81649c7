import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parsePytestLog } from './pytest-log.ts';

// Captured from pytest 7.2.1 in the bookworm rootfs; the test module is beside it.
const log = readFileSync(new URL('./fixtures/pytest-7.2.1-statuses.log', import.meta.url), 'utf8');

test('reads every status of a real -rA summary', () => {
  const report = parsePytestLog(log);
  assert.deepEqual(Object.fromEntries(report.statuses), {
    'test_statuses.py::test_pass': 'PASSED',
    'test_statuses.py::test_param[one]': 'PASSED',
    'test_statuses.py::test_param[two[nested]]': 'PASSED',
    'test_statuses.py::test_teardown_error': 'ERROR',
    'test_statuses.py::test_xfail': 'XFAIL',
    'test_statuses.py::test_xpass': 'XPASS',
    'test_statuses.py::test_setup_error': 'ERROR',
    'test_statuses.py::test_fail': 'FAILED',
  });
});

test('a passed test whose teardown errored keeps ERROR, whatever the order', () => {
  const flipped = parsePytestLog(
    '=== short test summary info ===\nERROR t.py::test_a - boom\nPASSED t.py::test_a\n',
  );
  assert.equal(flipped.statuses.get('t.py::test_a'), 'ERROR');
});

test('ids cut at whitespace are reported, not misread', () => {
  const report = parsePytestLog(log);
  assert.deepEqual(report.unparsed, ['PASSED test_statuses.py::test_space_id[a b]']);
  assert.equal(report.statuses.has('test_statuses.py::test_space_id[a'), false);
});

test('skips are listed apart, since their lines name no test id', () => {
  assert.deepEqual(parsePytestLog(log).skipped, ['SKIPPED [1] test_statuses.py:48: not here']);
});

test('only the summary counts: output printed by tests is ignored', () => {
  const report = parsePytestLog(
    'PASSED fake::id\n=== short test summary info ===\nFAILED t.py::test_b - x\n',
  );
  assert.deepEqual([...report.statuses], [['t.py::test_b', 'FAILED']]);
  assert.equal(parsePytestLog('no summary here').statuses.size, 0);
});
