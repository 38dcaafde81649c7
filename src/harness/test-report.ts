/**
 * The result of parsing a test log: test id → status. Statuses are SWE-bench's five; `raw` keeps what
 * the runner printed (`XPASS`, `expected failure`, `✓`, …) beside the normalized status.
 */

export const TEST_STATUSES = ['PASSED', 'FAILED', 'SKIPPED', 'ERROR', 'XFAIL'] as const;
export type TestStatus = (typeof TEST_STATUSES)[number];

export interface TestResult {
  status: TestStatus;
  raw: string;
}

export type TestReport = Map<string, TestResult>;

/** A log parser: pure, never throws on odd input, returns tests in the order first seen. */
export type LogParser = (log: string) => TestReport;

export function isTestStatus(value: string): value is TestStatus {
  return (TEST_STATUSES as readonly string[]).includes(value);
}

/** SWE-bench counts a test as passed when it PASSED or is an expected failure (XFAIL). */
export function isPassing(status: TestStatus): boolean {
  return status === 'PASSED' || status === 'XFAIL';
}

/** A report as a plain object (test id → status), for JSON output and comparisons. */
export function reportStatuses(report: TestReport): Record<string, TestStatus> {
  return Object.fromEntries([...report].map(([id, r]) => [id, r.status]));
}
