/**
 * SWE-bench's log markers (harness/constants, v5.0.1). The harness writes them into every evaluation log,
 * for every kind of task, and grading reads them: any of the four failure markers anywhere in the log
 * makes the run an `error`, and the tests' output is what lies between the start and end markers.
 */
export const APPLY_PATCH_PASS = '>>>>> Applied Patch';
export const APPLY_PATCH_FAIL = '>>>>> Patch Apply Failed';
export const RESET_FAILED = '>>>>> Reset Failed';
export const TESTS_ERROR = '>>>>> Tests Errored';
export const TESTS_TIMEOUT = '>>>>> Tests Timed Out';
export const START_TEST_OUTPUT = '>>>>> Start Test Output';
export const END_TEST_OUTPUT = '>>>>> End Test Output';
/** Followed by ": <exit code of the test command>", after the end marker. */
export const TEST_EXIT_CODE = '>>>>> Test Exit Code';
/** The shell variable the eval script keeps the test command's exit code in (SWE-bench's name). */
export const TEST_EXIT_CODE_VAR = 'SWEBENCH_TEST_EXIT_CODE';
