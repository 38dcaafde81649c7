import { DatasetError } from '../../../src/errors.ts';
import type { PytestRun } from './run-pytest.ts';

/** Our tasks' ids must read back unambiguously and no test may be skipped, for any grader. */
export function checkReport(run: PytestRun, label: string): void {
  if (run.report.unparsed.length > 0) {
    throw new DatasetError(
      `${label}: test ids with whitespace cannot be graded: ${run.report.unparsed.join('; ')}`,
    );
  }
  if (run.report.skipped.length > 0) {
    throw new DatasetError(`${label}: bundled tests must not skip: ${run.report.skipped.join('; ')}`);
  }
  if (run.report.statuses.size === 0)
    throw new DatasetError(`${label}: pytest reported no tests:\n${run.log}`);
}
