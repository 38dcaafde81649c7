import type { TestReport, TestStatus } from '../test-report.ts';

/**
 * SWE-bench's `parse_log_sympy` (v5.0.1), rule for rule, for SymPy's `bin/test -C --verbose`: result lines
 * `test_name ok|F|E`, and the failure headers `____ path/test_x.py:test_name ____` (the key then keeps the
 * path). Expected failures (`f`), unexpected passes (`X`) and skips (`s`) are left out, as SWE-bench does.
 */
export function parseSympy(log: string): TestReport {
  const report: TestReport = new Map();
  const set = (id: string, status: TestStatus, raw: string) => report.set(id, { status, raw });
  for (const m of log.matchAll(/(_*) (.*)\.py:(.*) (_*)/g)) set(`${m[2]}.py:${m[3]}`, 'FAILED', 'header');
  for (let line of log.split('\n')) {
    line = line.trim();
    if (!line.startsWith('test_')) continue;
    const name = line.split(/\s+/)[0]!;
    if (line.endsWith(' E')) set(name, 'ERROR', 'E');
    if (line.endsWith(' F')) set(name, 'FAILED', 'F');
    if (line.endsWith(' ok')) set(name, 'PASSED', 'ok');
  }
  return report;
}
