import type { TestReport, TestStatus } from '../test-report.ts';

/**
 * R2E-Gym's `parse_log_pytest` (repo_analysis/execution_log_parser.py), rule for rule, with the clean-up
 * its runtime applies to the output first (colour codes and carriage returns removed). It reads the text
 * after pytest's "short test summary info" up to any next one; a line containing PASSED, FAILED or ERROR
 * (checked in that order) names `Class.test` — the node id without its file, "::" joined with "." — and
 * FAILED/ERROR lines drop their " - message". XFAIL, XPASS and SKIPPED lines are left out.
 */
export function parseR2ePytest(log: string): TestReport {
  const report: TestReport = new Map();
  const clean = log.replace(/\x1b\[[0-9;]*m|\r/g, '');
  const marker = 'short test summary info';
  if (!clean.includes(marker)) return report;
  const summary = clean.split(marker)[1]!.trim();
  for (const line of summary.split('\n')) {
    const name = line.split('::').slice(1).join('.');
    let status: TestStatus | undefined;
    if (line.includes('PASSED')) status = 'PASSED';
    else if (line.includes('FAILED')) status = 'FAILED';
    else if (line.includes('ERROR')) status = 'ERROR';
    if (!status) continue;
    report.set(status === 'PASSED' ? name : name.split(' - ')[0]!, { status, raw: status });
  }
  return report;
}
