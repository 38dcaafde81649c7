import type { Grade } from './grade.ts';
import { errorGrade } from './grade.ts';
import { readTestOutput } from './read-test-output.ts';
import { isPassing, type LogParser, type TestReport } from './test-report.ts';

/**
 * SWE-PDB's reward for single-file debugging tasks without test lists (debug-gym's
 * extract_max_score/extract_reward): the score is pytest's "N passed" + "N skipped" + "N xfailed", the
 * maximum is "collected N items" (at least 1), and the task is resolved when the score reaches the
 * maximum. Like debug-gym, each count is the first match in the test output. The per-test report (from
 * `-rA`) fills `f2p` so people can see which tests failed.
 */
export function gradePytestCounts(log: string, parser: LogParser): { grade: Grade; report: TestReport } {
  const output = readTestOutput(log, parser);
  if (!output.ok) return { grade: errorGrade(output.error, output.reason), report: new Map() };
  const { report, text } = output;
  const f2p = { passed: [] as string[], failed: [] as string[] };
  for (const [id, r] of report) (isPassing(r.status) ? f2p.passed : f2p.failed).push(id);
  const base = { f2p, p2p: { passed: [], failed: [] } };
  const collected = /collected (\d+) items?/.exec(text);
  if (!collected) {
    return {
      grade: { status: 'unresolved', reason: 'pytest collected no tests (no "collected N items")', ...base },
      report,
    };
  }
  const maxScore = Math.max(Number(collected[1]), 1);
  const score = ['passed', 'skipped', 'xfailed'].reduce((sum, word) => {
    const m = new RegExp(`(\\d+) ${word}`).exec(text);
    return sum + (m ? Number(m[1]) : 0);
  }, 0);
  const resolved = score === maxScore;
  return {
    grade: {
      status: resolved ? 'resolved' : 'unresolved',
      reason: `${score} of ${maxScore} tests passed`,
      ...base,
    },
    report,
  };
}
