import { DatasetError } from '../../../src/errors.ts';
import type { TestStatus } from './pytest-log.ts';

/** SWE-bench counts XFAIL as a pass; every other status but PASSED is a failure. */
export function isPass(status: TestStatus | undefined): boolean {
  return status === 'PASSED' || status === 'XFAIL';
}

/**
 * SWE-bench's resolved rule: every FAIL_TO_PASS and PASS_TO_PASS test passes; a test missing from
 * the run counts as failed.
 */
export function isResolved(
  statuses: ReadonlyMap<string, TestStatus>,
  failToPass: readonly string[],
  passToPass: readonly string[],
): boolean {
  return [...failToPass, ...passToPass].every((id) => isPass(statuses.get(id)));
}

/**
 * FAIL_TO_PASS and PASS_TO_PASS from a run before and a run after the gold patch, in the order the
 * tests ran after it. A bundled task's gold run must pass every test, and no test may disappear.
 */
export function splitTests(
  before: ReadonlyMap<string, TestStatus>,
  after: ReadonlyMap<string, TestStatus>,
  label: string,
): { failToPass: string[]; passToPass: string[] } {
  const failing = [...after]
    .filter(([, status]) => status !== 'PASSED')
    .map(([id, status]) => `${status} ${id}`);
  if (failing.length > 0) {
    throw new DatasetError(
      `${label}: with the gold patch these tests do not pass:\n  ${failing.join('\n  ')}`,
    );
  }
  const vanished = [...before.keys()].filter((id) => !after.has(id));
  if (vanished.length > 0) {
    throw new DatasetError(
      `${label}: tests ran before the gold patch but not after it: ${vanished.join(', ')}`,
    );
  }
  const failToPass: string[] = [];
  const passToPass: string[] = [];
  for (const id of after.keys()) (isPass(before.get(id)) ? passToPass : failToPass).push(id);
  return { failToPass, passToPass };
}
