/**
 * The grading harness: apply a patch in a sandbox, run a task's tests, parse the log into per-test
 * statuses, and grade it exactly as SWE-bench (v5) and R2E-Gym do — or as SWE-PDB does for debugging
 * tasks without test lists. `error` grades (patch did not apply, tests timed out, sandbox died) are kept
 * apart from `unresolved` ones.
 */
export { buildEvalPlan, type EvalPlan, HARNESS_DIR, recordTestExitCode } from './eval-script.ts';
export { DEFAULT_TEST_TIMEOUT_MS, type EvaluateOptions, type Evaluation, evaluate } from './evaluate.ts';
export {
  errorGrade,
  type Grade,
  type GradeErrorKind,
  type GradeStatus,
  type ResolvedStatus,
  type StatusMismatch,
  type TestOutcomes,
} from './grade.ts';
export { gradeLog } from './grade-log.ts';
export { gradePytestCounts } from './grade-pytest-counts.ts';
export { gradeR2e } from './grade-r2e.ts';
export { gradeReport, gradeSwebench, type SwebenchExpectations } from './grade-swebench.ts';
export { getLogParser, LOG_PARSERS } from './log-parsers.ts';
export * from './markers.ts';
export { ALREADY_APPLIED_CHECK, PATCH_APPLY_COMMANDS, PATCH_FILE, restoreCommand } from './patch-apply.ts';
export { readTestOutput, SUITE_RAN, type TestOutput } from './read-test-output.ts';
export {
  isPassing,
  isTestStatus,
  type LogParser,
  reportStatuses,
  TEST_STATUSES,
  type TestReport,
  type TestResult,
  type TestStatus,
} from './test-report.ts';
