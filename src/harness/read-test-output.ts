import type { GradeErrorKind } from './grade.ts';
import {
  APPLY_PATCH_FAIL,
  END_TEST_OUTPUT,
  RESET_FAILED,
  START_TEST_OUTPUT,
  TEST_EXIT_CODE,
  TESTS_ERROR,
  TESTS_TIMEOUT,
} from './markers.ts';
import type { LogParser, TestReport } from './test-report.ts';

export type TestOutput =
  | {
      ok: true;
      report: TestReport;
      /** The text the report was read from: between the markers, or the whole log (see below). */
      text: string;
      /** The test command's exit code, when the eval script recorded it. */
      exitCode: number | null;
    }
  | { ok: false; error: GradeErrorKind; reason: string };

const FAILURE_MARKERS: readonly [string, GradeErrorKind][] = [
  [APPLY_PATCH_FAIL, 'patch_apply_failed'],
  [RESET_FAILED, 'reset_failed'],
  [TESTS_ERROR, 'tests_errored'],
  [TESTS_TIMEOUT, 'tests_timed_out'],
];

const EXIT_CODE = new RegExp(`${TEST_EXIT_CODE}:\\s*(-?\\d+)`);

/**
 * The first steps of SWE-bench's get_logs_eval (v5.0.1): a failure marker anywhere, or a missing start or
 * end marker, means the run did not test the patch. Otherwise the parser reads the text between the first
 * start marker and the end marker after it; when that yields nothing it reads the whole log (some runners
 * write results outside the markers when stdout and stderr interleave).
 */
export function readTestOutput(log: string, parser: LogParser): TestOutput {
  for (const [marker, error] of FAILURE_MARKERS) {
    if (log.includes(marker)) return { ok: false, error, reason: `the log says "${marker}"` };
  }
  if (!log.includes(START_TEST_OUTPUT) || !log.includes(END_TEST_OUTPUT)) {
    return {
      ok: false,
      error: 'no_test_output',
      reason: 'the log has no test-output markers: the eval script stopped before running the tests',
    };
  }
  const sliced = log.split(START_TEST_OUTPUT)[1]!.split(END_TEST_OUTPUT)[0]!;
  const exitCode = EXIT_CODE.exec(log);
  const output = { exitCode: exitCode ? Number(exitCode[1]) : null };
  const report = parser(sliced);
  if (report.size > 0) return { ok: true, report, text: sliced, ...output };
  return { ok: true, report: parser(log), text: log, ...output };
}

/**
 * SWE-bench's evidence that a runner ran at all (grading.SUITE_RAN): every count must be non-zero, so a
 * runner that started and found nothing does not pass as one that passed everything.
 */
export const SUITE_RAN =
  /Executed [1-9]\d* of \d+|TOTAL: [1-9]\d* (?:SUCCESS|FAILED)|[1-9]\d* passing|Tests:\s+[1-9]\d*|Test Suites:\s+(?:\d+ \w+, )*[1-9]\d* total|^# tests [1-9]\d*|[1-9]\d* specs?, \d+ failures?|': ok$/m;
