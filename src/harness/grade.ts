/**
 * The outcome of grading one evaluation. `error` is kept apart from `unresolved`: it means the run says
 * nothing about the patch (it did not apply, the tests timed out, the sandbox died), so training masks
 * the episode instead of scoring it 0.
 */

export type GradeStatus = 'resolved' | 'unresolved' | 'error';

/** Why a run is an `error`. */
export type GradeErrorKind =
  /** No way of applying the patch worked (SWE-bench's "Patch Apply Failed"). */
  | 'patch_apply_failed'
  /** The test files could not be reset to the base commit. */
  | 'reset_failed'
  /** The log carries SWE-bench's "Tests Errored" marker. */
  | 'tests_errored'
  /** The tests ran past their deadline. */
  | 'tests_timed_out'
  /** The log has no start/end test-output markers: the eval script stopped before the tests. */
  | 'no_test_output'
  /** The test output was cut at the output limit and what is left does not show a resolution. */
  | 'output_truncated'
  /** The sandbox broke (a SandboxError), so nothing ran to the end. */
  | 'sandbox_failed';

/** SWE-bench's resolution levels; only FULL counts as resolved. */
export type ResolvedStatus = 'RESOLVED_FULL' | 'RESOLVED_PARTIAL' | 'RESOLVED_NO';

export interface TestOutcomes {
  passed: string[];
  failed: string[];
}

/** R2E-Gym: a test whose status differs from the expected one (null: absent on that side). */
export interface StatusMismatch {
  test: string;
  expected: string | null;
  actual: string | null;
}

export interface Grade {
  status: GradeStatus;
  /** One line for people: what decided the status. */
  reason: string;
  /** Set exactly when status is 'error'. */
  error?: GradeErrorKind;
  /** FAIL_TO_PASS outcomes (SWE-bench, and debugging tasks with lists; a SWE-PDB task's every test). */
  f2p: TestOutcomes;
  /** PASS_TO_PASS outcomes. */
  p2p: TestOutcomes;
  /** SWE-bench's level, for tasks graded by its rule. */
  resolution?: ResolvedStatus;
  /** R2E-Gym: every test whose status is not the expected one. */
  mismatches?: StatusMismatch[];
}

export function errorGrade(error: GradeErrorKind, reason: string): Grade {
  return { status: 'error', error, reason, f2p: { passed: [], failed: [] }, p2p: { passed: [], failed: [] } };
}
