import { isTestStatus, TEST_STATUSES, type TestReport, type TestStatus } from '../test-report.ts';
import { pySplit } from './log-text.ts';

/**
 * SWE-bench's pytest parsers (swebench/harness/log_parsers/python.py, v5.0.1), rule for rule, so the
 * test ids match the FAIL_TO_PASS/PASS_TO_PASS lists those parsers produced. They read `pytest -rA`'s
 * short summary: lines that start with a status. The id is the first word after the status, so a
 * parametrized id with a space is cut there, exactly as in the published lists.
 */

const startsWithStatus = (line: string) => TEST_STATUSES.some((s) => line.startsWith(s));

/** `SKIPPED [N] path:line: reason` names no test; pytest prints it for every skip. */
function isSkipSummary(status: string, name: string): boolean {
  return status === 'SKIPPED' && /^\[\d+\]$/.test(name);
}

function set(report: TestReport, id: string, status: string): void {
  if (isTestStatus(status)) report.set(id, { status, raw: status });
}

/** `parse_log_pytest`: the default (flask, xarray, astroid, marshmallow, pvlib, pyvista, sqlfluff, pytest). */
export function parsePytest(log: string): TestReport {
  return parseStatusLines(log, (id) => id);
}

/** `parse_log_matplotlib`: as pytest, with mouse-button enums spelled as their numbers. */
export function parseMatplotlib(log: string): TestReport {
  return parseStatusLines(
    log,
    (id) => id,
    (line) => line.replaceAll('MouseButton.LEFT', '1').replaceAll('MouseButton.RIGHT', '3'),
  );
}

/**
 * `parse_log_pytest_options` (requests, pylint, pydicom): a parameter that is an absolute path is
 * shortened to its last component, so ids do not depend on where the repository was checked out.
 */
export function parsePytestOptions(log: string): TestReport {
  return parseStatusLines(log, (id) => {
    const m = /(.*?)\[(.*)\]/.exec(id);
    if (!m) return id;
    let option = m[2]!;
    if (option.startsWith('/') && !option.startsWith('//') && !option.includes('*')) {
      option = `/${option.split('/').at(-1)}`;
    }
    return `${m[1]}[${option}]`;
  });
}

function parseStatusLines(
  log: string,
  testId: (word: string) => string,
  rewrite: (line: string) => string = (line) => line,
): TestReport {
  const report: TestReport = new Map();
  for (let line of log.split('\n')) {
    line = rewrite(line);
    if (!startsWithStatus(line)) continue;
    if (line.startsWith('FAILED')) line = line.replaceAll(' - ', ' ');
    const words = pySplit(line);
    if (words.length <= 1 || isSkipSummary(words[0]!, words[1]!)) continue;
    set(report, testId(words[1]!), words[0]!);
  }
  return report;
}

/**
 * `parse_log_pytest_v2` (astropy, scikit-learn, sphinx): colour codes and control characters removed;
 * summary lines keep the whole rest of the line as the id (FAILED lines up to " - "), and lines that
 * end with a status, as pytest's classic verbose progress prints them, count too.
 */
export function parsePytestV2(log: string): TestReport {
  const report: TestReport = new Map();
  for (let line of log.split('\n')) {
    line = line.replace(/\[(\d+)m/g, '').replace(/[\x01-\x1f]/g, '');
    if (startsWithStatus(line)) {
      if (line.startsWith('FAILED')) line = line.split(' - ')[0]!;
      const words = pySplit(line);
      if (words.length >= 2 && !isSkipSummary(words[0]!, words[1]!))
        set(report, words.slice(1).join(' '), words[0]!);
    } else if (TEST_STATUSES.some((s) => line.endsWith(s))) {
      const words = pySplit(line);
      if (words.length >= 2) set(report, words.slice(0, -1).join(' '), words.at(-1)!);
    }
  }
  return report;
}

/** `parse_log_seaborn`: FAILED and PASSED summary lines, and verbose lines with PASSED second. */
export function parseSeaborn(log: string): TestReport {
  const report: TestReport = new Map();
  const passed: TestStatus = 'PASSED';
  for (const line of log.split('\n')) {
    const parts = pySplit(line);
    if (parts.length < 2) continue;
    if (line.startsWith('FAILED')) set(report, parts[1]!, 'FAILED');
    else if (line.includes(` ${passed} `)) {
      if (parts[1] === passed) set(report, parts[0]!, passed);
    } else if (line.startsWith(passed)) set(report, parts[1]!, passed);
  }
  return report;
}
