import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gradePytestCounts } from './grade-pytest-counts.ts';
import { getLogParser } from './log-parsers.ts';
import { fixtureLog } from './testing/fixture-log.ts';

const wrap = (body: string) => `+ : '>>>>> Start Test Output'\n${body}\n+ : '>>>>> End Test Output'\n`;
const parser = getLogParser('pytest');

test("SWE-PDB's rule: passed + skipped + xfailed must reach the collected count", () => {
  const { grade, report } = gradePytestCounts(
    wrap(fixtureLog('pytest/outcomes-ra.pytest-9.0.3.log')),
    parser,
  );
  assert.equal(grade.status, 'unresolved');
  assert.equal(grade.reason, '16 of 23 tests passed');
  assert.ok(grade.f2p.failed.includes('test_outcomes.py::test_fail'));
  assert.ok(grade.f2p.passed.includes('test_outcomes.py::test_xfail'));
  assert.equal(report.size, 20);

  const passing = wrap(
    'collected 4 items\n\ntest.py ..sx [100%]\n===== 2 passed, 1 skipped, 1 xfailed in 0.02s =====',
  );
  assert.equal(gradePytestCounts(passing, parser).grade.status, 'resolved');
});

test('a file that does not import collects nothing and is unresolved', () => {
  const { grade } = gradePytestCounts(
    wrap(fixtureLog('pytest/collection-error-ra.pytest-7.2.1.log')),
    parser,
  );
  assert.equal(grade.status, 'unresolved');
  const none = gradePytestCounts(wrap('python: command not found'), parser).grade;
  assert.match(none.reason, /collected no tests/);
});
