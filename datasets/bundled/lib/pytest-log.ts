/** Statuses pytest prints in its `-rA` short test summary. */
export type TestStatus = 'PASSED' | 'FAILED' | 'ERROR' | 'XFAIL' | 'XPASS';

export interface PytestReport {
  /** Node id → status, in the order pytest reported them. */
  statuses: Map<string, TestStatus>;
  /** `SKIPPED [n] file:line: reason` lines, which name no test id. */
  skipped: string[];
  /** Status lines whose node id could not be read (a parameter id with whitespace). */
  unparsed: string[];
}

// The node id is the first word; what follows is the reason (" - message", or for XPASS in pytest 7
// the bare reason).
const STATUS_LINE = /^(PASSED|FAILED|ERROR|XFAIL|XPASS) (\S+)(?:\s.*)?$/;
const FAILING = new Set<TestStatus>(['FAILED', 'ERROR']);

/**
 * Reads the short test summary of `pytest -rA`. Like SWE-bench's parser it takes the first word as
 * the node id, so ids must not contain whitespace; a first word with unbalanced brackets (a
 * parameter id cut at a space) is returned in `unparsed` rather than misread. A test reported twice
 * (it passed, then its teardown errored) keeps the failing status.
 */
export function parsePytestLog(log: string): PytestReport {
  const report: PytestReport = { statuses: new Map(), skipped: [], unparsed: [] };
  const lines = log.split('\n');
  const start = lines.findIndex((line) => /^=+ short test summary info =+$/.test(line.trim()));
  if (start === -1) return report;
  for (const raw of lines.slice(start + 1)) {
    const line = raw.trimEnd();
    if (line.startsWith('SKIPPED ')) {
      report.skipped.push(line);
      continue;
    }
    if (!/^(PASSED|FAILED|ERROR|XFAIL|XPASS) /.test(line)) continue;
    const match = STATUS_LINE.exec(line);
    if (!match || count(match[2]!, '[') !== count(match[2]!, ']')) {
      report.unparsed.push(line);
      continue;
    }
    const status = match[1] as TestStatus;
    const id = match[2]!;
    const previous = report.statuses.get(id);
    if (previous === undefined || !FAILING.has(previous)) report.statuses.set(id, status);
  }
  return report;
}

function count(text: string, char: string): number {
  return text.split(char).length - 1;
}
