import type { Grade, StatusMismatch } from './grade.ts';
import { errorGrade } from './grade.ts';
import { readTestOutput } from './read-test-output.ts';
import type { LogParser, TestReport } from './test-report.ts';

/**
 * R2E-Gym's reward (DockerRuntime._calculate_reward_r2e): 1 iff the parsed statuses equal
 * expected_output_json exactly — as many tests, each with the same status, expected failures included.
 * Both sides' names lose colour codes and any " - message", as R2E-Gym normalizes them (when two names
 * become one, the later in sorted order wins). Where R2E-Gym would crash on a name missing from the
 * expected side, this reports a mismatch. The log's markers are checked first, as for every task.
 */
export function gradeR2e(
  log: string,
  parser: LogParser,
  expectedOutput: Readonly<Record<string, string>>,
): { grade: Grade; report: TestReport } {
  const output = readTestOutput(log, parser);
  if (!output.ok) return { grade: errorGrade(output.error, output.reason), report: new Map() };
  const actual = normalize(Object.fromEntries([...output.report].map(([id, r]) => [id, r.status])));
  const expected = normalize(expectedOutput);
  const mismatches: StatusMismatch[] = [];
  for (const test of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
    const e = expected[test] ?? null;
    const a = actual[test] ?? null;
    if (e !== a) mismatches.push({ test, expected: e, actual: a });
  }
  const total = Object.keys(expected).length;
  const grade: Grade = {
    status: mismatches.length === 0 ? 'resolved' : 'unresolved',
    reason:
      mismatches.length === 0
        ? `all ${total} tests have their expected status`
        : `${mismatches.length} of ${total} expected statuses differ: ${mismatches
            .slice(0, 5)
            .map((m) => `${m.test} (expected ${m.expected ?? 'absent'}, got ${m.actual ?? 'absent'})`)
            .join(', ')}`,
    f2p: { passed: [], failed: [] },
    p2p: { passed: [], failed: [] },
    mismatches,
  };
  return { grade, report: output.report };
}

function normalize(statuses: Readonly<Record<string, string>>): Record<string, string> {
  const entries = Object.entries(statuses).map(([k, v]): [string, string] => [
    k.replace(/\x1b\[\d+m/g, ''),
    v,
  ]);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const result: Record<string, string> = {};
  for (const [k, v] of entries) result[k.split(' - ')[0]!] = v;
  return result;
}
