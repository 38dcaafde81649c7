import type { TestReport, TestStatus } from '../test-report.ts';
import { stripAnsi } from './log-text.ts';

/**
 * unittest's verbose output (`python -m unittest -v`, and runners built on it such as Django's).
 * Tests are named `module.Class.test_method`, the name `python -m unittest` accepts, whether the runner
 * printed `test_x (module.Class)` (Python ≤ 3.10) or `test_x (module.Class.test_x)` (3.11+).
 *
 * What real logs do, and how it is read:
 * - a test that prints lands its output between "... " and the status, sometimes glued to it
 *   ("partial outputok"): the status is the last one seen before the next test starts;
 * - a docstring's first line follows the name on its own line, then " ... status";
 * - a failing subtest prints `name (id) (i=2) ... FAIL` (3.11+) or nothing at all (≤ 3.10, the next test's
 *   name continues the same line); the FAIL:/ERROR: headers of the summary settle it either way, and a
 *   failed subtest is never overridden by a later "ok";
 * - class fixtures report as `setUpClass (module.Class)`; their tests never run and are absent;
 * - an unexpected success counts as FAILED (unittest fails the run for it); an expected failure as XFAIL.
 */

const RESULT_START = /(?:^\s*|(?<=\.\.\. ))(\w+) \(([\w.]+)\)(?: \(([^)]*)\))? \.\.\. ?/g;
const NAME_ONLY = /^(\w+) \(([\w.]+)\)$/;
const SUMMARY_HEADER = /^(FAIL|ERROR|UNEXPECTED SUCCESS): (\w+) \(([\w.]+)\)/;
const STATUS_AT_END = /(ok|FAIL|ERROR|skipped(?: '.*'| ".*")?|expected failure|unexpected success)$/;
const SECTION_END = /^(?:={20,}|-{20,}|Ran \d+ tests? in )/;

function statusOf(raw: string): TestStatus {
  if (raw === 'ok') return 'PASSED';
  if (raw === 'ERROR') return 'ERROR';
  if (raw.startsWith('skipped')) return 'SKIPPED';
  if (raw === 'expected failure') return 'XFAIL';
  return 'FAILED';
}

function testId(name: string, where: string): string {
  return where.endsWith(`.${name}`) ? where : `${where}.${name}`;
}

export function parseUnittest(log: string): TestReport {
  const report: TestReport = new Map();
  const failedSubtests = new Set<string>();
  let current: string | null = null;
  let awaitingDocstring: string | null = null;

  const record = (id: string, raw: string, fromSubtest = false) => {
    const status = statusOf(raw);
    if (failedSubtests.has(id) && status === 'PASSED') return;
    if (fromSubtest && status !== 'PASSED') failedSubtests.add(id);
    report.set(id, { status, raw });
  };
  const readStatus = (segment: string, id: string | null, fromSubtest = false) => {
    const m = id === null ? null : STATUS_AT_END.exec(segment.trimEnd());
    if (m) record(id!, m[1]!, fromSubtest);
  };

  for (const rawLine of stripAnsi(log).split('\n')) {
    const line = rawLine.replace(/\r$/, '');
    const header = SUMMARY_HEADER.exec(line);
    if (header) {
      const id = testId(header[2]!, header[3]!);
      report.set(id, { status: statusOf(header[1]!), raw: `${header[1]}:` });
      if (header[1] !== 'UNEXPECTED SUCCESS') failedSubtests.add(id);
      current = null;
      continue;
    }
    if (SECTION_END.test(line)) {
      current = null;
      continue;
    }
    if (awaitingDocstring !== null && line.includes(' ... ')) {
      current = awaitingDocstring;
      awaitingDocstring = null;
      readStatus(line.slice(line.indexOf(' ... ') + 5), current);
      continue;
    }
    const starts = [...line.matchAll(RESULT_START)];
    if (starts.length === 0) {
      const named = NAME_ONLY.exec(line.trim());
      if (named) {
        awaitingDocstring = testId(named[1]!, named[2]!);
        current = null;
      } else readStatus(line, current);
      continue;
    }
    readStatus(line.slice(0, starts[0]!.index), current);
    starts.forEach((start, i) => {
      current = testId(start[1]!, start[2]!);
      const end = starts[i + 1]?.index ?? line.length;
      readStatus(line.slice(start.index + start[0].length, end), current, start[3] !== undefined);
    });
  }
  return report;
}
