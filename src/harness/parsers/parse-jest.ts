import type { TestReport, TestStatus } from '../test-report.ts';
import { stripAnsi } from './log-text.ts';

/**
 * SWE-bench's `parse_log_jest` (v5.0.1) for `jest --verbose`: `✓ name (3 ms)`, `✕ name`, `○ skipped name`.
 * The id is the test's own title without its describe blocks (and, for skips, with jest's "skipped "
 * prefix), as in SWE-bench's lists; todo tests (`✎`) are left out. Colour codes are removed first; SWE-bench
 * runs jest without colours, so its logs have none.
 */
const LINE = /^\s*(✓|✕|○)\s(.+?)(?:\s\((\d+\s*m?s)\))?$/;
const STATUS: Record<string, TestStatus> = { '✓': 'PASSED', '✕': 'FAILED', '○': 'SKIPPED' };

export function parseJest(log: string): TestReport {
  const report: TestReport = new Map();
  for (const line of stripAnsi(log).split('\n')) {
    const m = LINE.exec(line.trim());
    if (m) report.set(m[2]!.trim(), { status: STATUS[m[1]!]!, raw: m[1]! });
  }
  return report;
}
