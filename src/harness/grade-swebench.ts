import type { EvalType } from '../tasks/index.ts';
import type { Grade, ResolvedStatus, TestOutcomes } from './grade.ts';
import { errorGrade } from './grade.ts';
import { readTestOutput, SUITE_RAN } from './read-test-output.ts';
import { isPassing, type LogParser, type TestReport } from './test-report.ts';

export interface SwebenchExpectations {
  FAIL_TO_PASS: readonly string[];
  PASS_TO_PASS: readonly string[];
  evalType: EvalType;
}

/**
 * SWE-bench's grading (harness/grading.py, v5.0.1), rule for rule:
 * - the log must be a test run (see readTestOutput); a run with no parsed result and no sign that the
 *   runner ran (SUITE_RAN), or whose test command exited non-zero while the log reports no failure
 *   (results printed by the patch itself), is not resolved;
 * - a test passed when it is PASSED or XFAIL; failed when absent, FAILED, ERROR or — for FAIL_TO_PASS —
 *   SKIPPED; a skipped PASS_TO_PASS test is kept; any other status counts on neither side;
 * - an id the log cut inside its parameters (more "[" than "]") matches the log's ids that start with it,
 *   when those agree on pass or fail;
 * - fail-only tasks count a test as passed unless the log says FAILED;
 * - the FAIL_TO_PASS and PASS_TO_PASS rates (an empty list is 1) give RESOLVED_FULL (both 1),
 *   RESOLVED_PARTIAL (0 < F2P < 1, P2P 1) or RESOLVED_NO; only FULL is resolved.
 * SWE-bench 4.1 lacked the skip, truncated-id, SUITE_RAN and exit-code rules; under it a patch that made
 * every FAIL_TO_PASS test skip was resolved.
 */
export function gradeSwebench(
  log: string,
  parser: LogParser,
  expected: SwebenchExpectations,
): { grade: Grade; report: TestReport } {
  const output = readTestOutput(log, parser);
  if (!output.ok) return { grade: errorGrade(output.error, output.reason), report: new Map() };
  const { report } = output;
  if (report.size === 0 && !SUITE_RAN.test(log)) {
    return {
      grade: unresolved('no test results in the log and no sign the test runner ran', expected),
      report,
    };
  }
  const anyFailure = [...report.values()].some((r) => r.status === 'FAILED' || r.status === 'ERROR');
  if (output.exitCode !== null && output.exitCode !== 0 && report.size > 0 && !anyFailure) {
    return {
      grade: unresolved(
        `the test command exited ${output.exitCode} but the log reports no failure; results not trusted`,
        expected,
      ),
      report,
    };
  }
  return { grade: gradeReport(report, expected), report };
}

/** The F2P/P2P rule on an already parsed report. */
export function gradeReport(report: TestReport, expected: SwebenchExpectations): Grade {
  const failOnly = expected.evalType === 'fail_only';
  const f2p = outcomes(expected.FAIL_TO_PASS, (t) =>
    failOnly ? failOnlyCheck(t, report) : passAndFail(t, report),
  );
  const p2p = outcomes(expected.PASS_TO_PASS, (t) =>
    failOnly ? failOnlyCheck(t, report) : maintained(t, report),
  );
  const resolution = resolutionOf(rate(f2p), rate(p2p));
  const summary = `FAIL_TO_PASS ${f2p.passed.length}/${f2p.passed.length + f2p.failed.length}, PASS_TO_PASS ${p2p.passed.length}/${p2p.passed.length + p2p.failed.length}`;
  const failing = [...f2p.failed, ...p2p.failed];
  const reason =
    resolution === 'RESOLVED_FULL'
      ? `${resolution}: ${summary}`
      : `${resolution}: ${summary}; failing: ${failing.slice(0, 5).join(', ')}${failing.length > 5 ? `, … (${failing.length})` : ''}`;
  return {
    status: resolution === 'RESOLVED_FULL' ? 'resolved' : 'unresolved',
    reason,
    f2p,
    p2p,
    resolution,
  };
}

type Verdict = 'passed' | 'failed' | 'neither';

function outcomes(tests: readonly string[], verdict: (test: string) => Verdict): TestOutcomes {
  const result: TestOutcomes = { passed: [], failed: [] };
  for (const test of tests) {
    const v = verdict(test);
    if (v !== 'neither') result[v].push(test);
  }
  return result;
}

/** SWE-bench's _resolve_case: exact id, or the prefix match for ids cut inside their parameters. */
function resolveCase(test: string, report: TestReport): string | undefined {
  if (report.has(test)) return test;
  if (count(test, '[') <= count(test, ']')) return undefined;
  const matches = [...report.keys()].filter((k) => k.startsWith(test));
  const outcomesSeen = new Set(matches.map((k) => isPassing(report.get(k)!.status)));
  return matches.length > 0 && outcomesSeen.size === 1 ? matches[0] : undefined;
}

function passAndFail(test: string, report: TestReport): Verdict {
  const key = resolveCase(test, report);
  const status = key === undefined ? undefined : report.get(key)!.status;
  if (status !== undefined && isPassing(status)) return 'passed';
  if (status === undefined || status === 'FAILED' || status === 'ERROR' || status === 'SKIPPED')
    return 'failed';
  return 'neither';
}

function maintained(test: string, report: TestReport): Verdict {
  const key = resolveCase(test, report);
  if (key !== undefined && report.get(key)!.status === 'SKIPPED') return 'passed';
  return passAndFail(test, report);
}

function failOnlyCheck(test: string, report: TestReport): Verdict {
  return report.get(test)?.status === 'FAILED' ? 'failed' : 'passed';
}

function rate(o: TestOutcomes): number {
  const total = o.passed.length + o.failed.length;
  return total === 0 ? 1 : o.passed.length / total;
}

function resolutionOf(f2p: number, p2p: number): ResolvedStatus {
  if (f2p === 1 && p2p === 1) return 'RESOLVED_FULL';
  if (f2p > 0 && f2p < 1 && p2p === 1) return 'RESOLVED_PARTIAL';
  return 'RESOLVED_NO';
}

function count(s: string, c: string): number {
  return s.split(c).length - 1;
}

function unresolved(reason: string, expected: SwebenchExpectations): Grade {
  return {
    status: 'unresolved',
    reason,
    f2p: { passed: [], failed: [...expected.FAIL_TO_PASS] },
    p2p: { passed: [], failed: [...expected.PASS_TO_PASS] },
    resolution: 'RESOLVED_NO',
  };
}
