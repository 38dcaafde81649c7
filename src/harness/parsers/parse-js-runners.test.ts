import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reportStatuses } from '../test-report.ts';
import { fixtureLog } from '../testing/fixture-log.ts';
import { parseJest } from './parse-jest.ts';
import { parseMocha } from './parse-mocha.ts';
import { parseVitest } from './parse-vitest.ts';

test('jest --verbose by SWE-bench rule: bare titles, "skipped " prefix, todo left out', () => {
  const expected = {
    'not a real test': 'PASSED', // console.log output indented like a result; SWE-bench's rule takes it
    'adds numbers': 'PASSED', // two tests share this title; the nested one wins
    'fails on purpose': 'FAILED',
    'prints a line that looks like a result': 'PASSED',
    'name with [brackets], (parens) and a - dash': 'PASSED',
    'add(1, 1) is 2': 'PASSED',
    'add(2, 2) is 5': 'FAILED',
    'skipped is skipped': 'SKIPPED',
    'body never runs': 'FAILED',
  };
  assert.deepEqual(reportStatuses(parseJest(fixtureLog('jest/outcomes-verbose.jest-30.5.2.log'))), expected);
  // A suite that fails to load adds no test; the others still count.
  assert.deepEqual(
    reportStatuses(parseJest(fixtureLog('jest/collection-error-verbose.jest-30.5.2.log'))),
    expected,
  );
});

test('vitest --reporter=verbose, 3.2.7 and 4.1.12 (coloured): file > suite > name ids', () => {
  const v3 = reportStatuses(parseVitest(fixtureLog('vitest/outcomes-verbose.vitest-3.2.7.log')));
  const v4 = reportStatuses(parseVitest(fixtureLog('vitest/outcomes-verbose.vitest-4.1.12.log')));
  const common = {
    'not a real test': 'PASSED',
    'arithmetic.spec.js > arithmetic > adds numbers': 'PASSED',
    'arithmetic.spec.js > arithmetic > fails on purpose': 'FAILED',
    'arithmetic.spec.js > arithmetic > is skipped': 'SKIPPED',
    'arithmetic.spec.js > arithmetic > is expected to fail': 'PASSED',
    'arithmetic.spec.js > arithmetic > prints a line that looks like a result': 'PASSED',
    'arithmetic.spec.js > arithmetic > name with [brackets], (parens) and a - dash': 'PASSED',
    'arithmetic.spec.js > arithmetic > add(1, 1) is 2': 'PASSED',
    'arithmetic.spec.js > arithmetic > add(2, 2) is 5': 'FAILED',
    'arithmetic.spec.js > arithmetic > nested group > adds numbers': 'PASSED',
    'arithmetic.spec.js > hooks > body never runs': 'FAILED',
    'arithmetic.spec.js > teardown > passes before the teardown fails': 'PASSED',
  };
  assert.deepEqual(v4, common, 'vitest 4 marks todo tests □, which no rule reads');
  assert.deepEqual(v3, { ...common, 'arithmetic.spec.js > arithmetic > is still to be written': 'SKIPPED' });
  const broken = reportStatuses(parseVitest(fixtureLog('vitest/collection-error-verbose.vitest-3.2.7.log')));
  assert.equal(broken['arithmetic.spec.js > arithmetic > adds numbers'], 'PASSED');
  assert.ok(!Object.keys(broken).some((id) => id.includes('broken')));
});

test('mocha spec reporter: full titles, pending as skipped, failed hooks as errors of their test', () => {
  const report = parseMocha(fixtureLog('mocha/outcomes-spec.mocha-11.8.0.log'));
  assert.deepEqual(reportStatuses(report), {
    'arithmetic adds numbers': 'PASSED',
    'arithmetic fails on purpose': 'FAILED',
    'arithmetic is skipped': 'SKIPPED',
    'arithmetic is pending without a body': 'SKIPPED',
    'not a real test': 'PASSED', // console.log output at suite depth
    'arithmetic prints a line that looks like a result': 'PASSED',
    'arithmetic name with [brackets], (parens) and a - dash': 'PASSED',
    'arithmetic add(1, 1) is 2': 'PASSED',
    'arithmetic add(2, 2) is 5': 'FAILED',
    'arithmetic is slow': 'PASSED',
    'arithmetic nested group adds numbers': 'PASSED',
    'hooks body never runs': 'ERROR',
    'teardown passes before the teardown fails': 'ERROR',
  });
  assert.equal(report.get('hooks is never reached either'), undefined);
  assert.equal(parseMocha(fixtureLog('mocha/collection-error-spec.mocha-11.8.0.log')).size, 0);
});
