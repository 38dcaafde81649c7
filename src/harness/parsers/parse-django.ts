import type { TestReport, TestStatus } from '../test-report.ts';

/**
 * SWE-bench's `parse_log_django` (v5.0.1), rule for rule: Django's runner at `--verbosity 2` prints
 * `test_x (module.Class) ... ok`, and the test's id is everything before " ... " (the docstring's first
 * line, when the test has one). Output a test prints lands between " ... " and the status; the line-wise
 * rules remember the last " ... " line and credit a later line starting with "ok" to it, and three
 * multi-line patterns catch known interleavings ("System check identified no issues", "Internal Server
 * Error", "Testing against Django installed in"). FAIL:/ERROR: headers give the method name only.
 */

const PASS_SUFFIXES = [' ... ok', ' ... OK', ' ...  OK'];

// The Python patterns with `(?s:.*?)` spelled `[\s\S]*?`; the third omits the period Django prints after
// "(0 silenced)", as SWE-bench's does, so only the line-wise "ok" rule credits that case.
const INTERLEAVED = [
  /^(.*?)\s\.\.\.\sTesting against Django installed in ([\s\S]*?) silenced\)\.\nok$/gm,
  /^(.*?)\s\.\.\.\sInternal Server Error: \/(.*)\/\nok$/gm,
  /^(.*?)\s\.\.\.\sSystem check identified no issues \(0 silenced\)\nok$/gm,
];

export function parseDjango(log: string): TestReport {
  const report: TestReport = new Map();
  const set = (id: string, status: TestStatus, raw: string) => report.set(id, { status, raw });
  let prevTest: string | null = null;
  for (let line of log.split('\n')) {
    line = line.trim();
    if (line.includes('--version is equivalent to version')) {
      set('--version is equivalent to version', 'PASSED', 'ok');
    }
    if (line.includes(' ... ')) prevTest = line.split(' ... ')[0]!;
    for (const suffix of PASS_SUFFIXES) {
      if (!line.endsWith(suffix)) continue;
      // SWE-bench's fix for django__django-7188, where a migration's output shares the test's line.
      if (line.startsWith('Applying sites.0002_alter_domain_unique...test_no_migrations')) {
        line = line.slice(line.indexOf('...') + 3).trim();
      }
      set(line.slice(0, line.lastIndexOf(suffix)), 'PASSED', suffix.trim().split(' ').at(-1)!);
      break;
    }
    if (line.includes(' ... skipped')) set(line.split(' ... skipped')[0]!, 'SKIPPED', 'skipped');
    if (line.endsWith(' ... FAIL')) set(line.split(' ... FAIL')[0]!, 'FAILED', 'FAIL');
    const headerName = line.split(/\s+/)[1];
    if (line.startsWith('FAIL:') && headerName) set(headerName, 'FAILED', 'FAIL:');
    if (line.endsWith(' ... ERROR')) set(line.split(' ... ERROR')[0]!, 'ERROR', 'ERROR');
    if (line.startsWith('ERROR:') && headerName) set(headerName, 'ERROR', 'ERROR:');
    if (line.trimStart().startsWith('ok') && prevTest !== null) set(prevTest, 'PASSED', 'ok');
  }
  for (const pattern of INTERLEAVED) {
    for (const m of log.matchAll(pattern)) set(m[1]!, 'PASSED', 'ok');
  }
  return report;
}
