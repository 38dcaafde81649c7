import type { TestReport, TestStatus } from '../test-report.ts';
import { stripAnsi } from './log-text.ts';

/**
 * pytest's verbose progress lines (`pytest -v`): `path::test[params] STATUS (reason)   [ 42%]`, for runs
 * without `-rA`'s summary, or cut short before it. Ids keep their spaces. A test with an error in its
 * teardown prints two lines; the later one wins. An unexpected pass (XPASS) did not behave as declared and
 * counts as FAILED, as it does under SWE-bench's summary rule, which leaves it out.
 */
const LINE = /^(\S.*?::.*?) (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)(?: \(.*\))?(?:\s+\[\s*\d+%\])?\s*$/;

export function parsePytestVerbose(log: string): TestReport {
  const report: TestReport = new Map();
  for (const line of stripAnsi(log).split('\n')) {
    const m = LINE.exec(line.trimEnd());
    if (!m) continue;
    const raw = m[2]!;
    const status: TestStatus = raw === 'XPASS' ? 'FAILED' : (raw as TestStatus);
    report.set(m[1]!, { status, raw });
  }
  return report;
}
