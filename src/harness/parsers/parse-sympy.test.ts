import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reportStatuses } from '../test-report.ts';
import { fixtureLog } from '../testing/fixture-log.ts';
import { parseSympy } from './parse-sympy.ts';

test("SymPy's runner by SWE-bench's rule: ok/F/E lines and failure headers; f, X and s left out", () => {
  assert.deepEqual(reportStatuses(parseSympy(fixtureLog('sympy/outcomes-verbose.sympy-1.14.0.log'))), {
    'sympy/fixture/tests/test_outcomes.py:test_raises_error': 'FAILED',
    'sympy/fixture/tests/test_outcomes.py::test_rational_fails': 'FAILED',
    test_expand: 'PASSED',
    test_rational_fails: 'FAILED',
    test_raises_error: 'ERROR',
    // The test printed "test_looks_like_a_result ok" on its own result line; the line still ends in " ok".
    test_prints: 'PASSED',
  });
});
