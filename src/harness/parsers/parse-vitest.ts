import type { TestReport, TestStatus } from '../test-report.ts';
import { stripAnsi } from './log-text.ts';

/**
 * SWE-bench's `parse_log_vitest` (v5.0.1) for `vitest --reporter=verbose`: `✓ file > suite > name 2ms`,
 * `× …`, `↓ …` (skipped; vitest 3 also marks todo tests so, vitest 4 marks them `□`, left out). The id is
 * the line without its duration. Colour codes are removed first (vitest 4 colours its output when TERM
 * says the terminal can).
 */
const LINE = /^\s*(✓|×|↓)\s(.+?)(?:\s(\d+\s*m?s?|\[skipped\]))?$/;
const STATUS: Record<string, TestStatus> = { '✓': 'PASSED', '×': 'FAILED', '↓': 'SKIPPED' };

export function parseVitest(log: string): TestReport {
  const report: TestReport = new Map();
  for (const line of stripAnsi(log).split('\n')) {
    const m = LINE.exec(line.trim());
    if (m) report.set(m[2]!, { status: STATUS[m[1]!]!, raw: m[1]! });
  }
  return report;
}
