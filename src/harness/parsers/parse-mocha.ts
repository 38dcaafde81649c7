import type { TestReport, TestStatus } from '../test-report.ts';
import { stripAnsi } from './log-text.ts';

/**
 * mocha's spec reporter (`mocha --reporter spec`). Suites and tests are indented two spaces per level;
 * a test is `✔ title (12ms)` (✓ in older versions), `N) title` when it failed, `- title` when pending.
 * The id is mocha's full title: the suite titles and the test title joined by spaces, so tests with the
 * same title in different suites stay apart. A failed hook, `N) "before each" hook for "title"`, is an
 * ERROR of the test it names (a failed "after each" hook overrides that test's pass); a hook naming no
 * test is an ERROR under its own title. The failure details after "N passing" are not read again.
 * Output a test prints can look like a suite title; it only affects the suite path of later lines at the
 * same depth, until the next real suite title.
 */
const PASS = /^[✔✓] (.*?)(?: \(\d+ms\))?$/;
const FAIL = /^\d+\) (.*)$/;
const PENDING = /^- (.*)$/;
const HOOK = /^"(?:before|after) (?:each|all)" hook(?: for "(.*)")?/;
const EPILOGUE = /^\s*\d+ passing \(/;

export function parseMocha(log: string): TestReport {
  const report: TestReport = new Map();
  const suites: string[] = [];
  const fullTitle = (depth: number, title: string) => [...suites.slice(0, depth), title].join(' ');
  for (const raw of stripAnsi(log).split('\n')) {
    const line = raw.trimEnd();
    if (EPILOGUE.test(line)) break;
    const indent = line.length - line.trimStart().length;
    if (indent < 2) continue;
    const text = line.trimStart();
    const depth = Math.floor(indent / 2) - 1;
    const add = (title: string, status: TestStatus, rawStatus: string) =>
      report.set(fullTitle(depth, title), { status, raw: rawStatus });
    let m = PASS.exec(text);
    if (m) {
      add(m[1]!, 'PASSED', text[0]!);
      continue;
    }
    m = FAIL.exec(text);
    if (m) {
      const hook = HOOK.exec(m[1]!);
      if (hook) add(hook[1] ?? m[1]!, 'ERROR', 'hook failed');
      else add(m[1]!, 'FAILED', 'failed');
      continue;
    }
    m = PENDING.exec(text);
    if (m) {
      add(m[1]!, 'SKIPPED', 'pending');
      continue;
    }
    suites.length = Math.min(suites.length, depth);
    suites[depth] = text;
  }
  return report;
}
