import { type DiffFile, diffFilePath, diffFiles } from './diff-files.ts';

/**
 * What SWE-bench knows per repository that its older dataset layout (Lite and Verified as first
 * published) leaves out: the test command and the log parser. Values are SWE-bench's (harness constants,
 * v4.1.0; the same commands appear in v5's published eval scripts). Repositories not listed here run
 * `pytest -rA` and are read with the `pytest` parser.
 */

interface RepoSpec {
  testCmd: string;
  logParser: string;
}

const PYTEST = 'pytest -rA';
const ASTROPY_CLASSIC = 'pytest -rA -vv -o console_output_style=classic --tb=no';
const DJANGO = './tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1';

const REPO_SPECS: Readonly<Record<string, RepoSpec>> = {
  'astropy/astropy': { testCmd: PYTEST, logParser: 'pytest_v2' },
  'django/django': { testCmd: DJANGO, logParser: 'django' },
  'marshmallow-code/marshmallow': { testCmd: PYTEST, logParser: 'pytest' },
  'matplotlib/matplotlib': { testCmd: PYTEST, logParser: 'matplotlib' },
  'mwaskom/seaborn': { testCmd: 'pytest --no-header -rA', logParser: 'seaborn' },
  'pallets/flask': { testCmd: PYTEST, logParser: 'pytest' },
  'psf/requests': { testCmd: PYTEST, logParser: 'pytest_options' },
  'pvlib/pvlib-python': { testCmd: PYTEST, logParser: 'pytest' },
  'pydata/xarray': { testCmd: PYTEST, logParser: 'pytest' },
  'pydicom/pydicom': { testCmd: PYTEST, logParser: 'pytest_options' },
  'pylint-dev/astroid': { testCmd: PYTEST, logParser: 'pytest' },
  'pylint-dev/pylint': { testCmd: PYTEST, logParser: 'pytest_options' },
  'pytest-dev/pytest': { testCmd: PYTEST, logParser: 'pytest' },
  'pyvista/pyvista': { testCmd: PYTEST, logParser: 'pytest' },
  'scikit-learn/scikit-learn': { testCmd: PYTEST, logParser: 'pytest_v2' },
  'sqlfluff/sqlfluff': { testCmd: PYTEST, logParser: 'pytest' },
  'sphinx-doc/sphinx': { testCmd: 'tox --current-env -epy39 -v --', logParser: 'pytest_v2' },
  'sympy/sympy': {
    testCmd: "PYTHONWARNINGS='ignore::UserWarning,ignore::SyntaxWarning' bin/test -C --verbose",
    logParser: 'sympy',
  },
};

/** Versions whose command differs from their repository's usual one. */
const VERSION_TEST_CMDS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'astropy/astropy': Object.fromEntries(
    ['0.1', '0.2', '0.3', '0.4', '1.1', '1.2', '1.3'].map((v) => [v, ASTROPY_CLASSIC]),
  ),
  'django/django': { '1.9': './tests/runtests.py --verbosity 2' },
};

/** Repositories whose parser records failures only, so SWE-bench grades them fail-only (v5's list). */
export const FAIL_ONLY_REPOS: ReadonlySet<string> = new Set([
  'chartjs/Chart.js',
  'processing/p5.js',
  'markedjs/marked',
  'bpmn-io/bpmn-js',
  'openlayers/openlayers',
  'eslint/eslint',
]);

export function swebenchTestCmd(repo: string, version: string): string {
  return VERSION_TEST_CMDS[repo]?.[version] ?? REPO_SPECS[repo]?.testCmd ?? PYTEST;
}

export function swebenchLogParser(repo: string): string {
  return REPO_SPECS[repo]?.logParser ?? 'pytest';
}

/** SWE-bench's instance image on Docker Hub: `swebench/sweb.eval.x86_64.<id>`, with `__` spelled `_1776_`. */
export function swebenchImage(instanceId: string): string {
  return `swebench/sweb.eval.x86_64.${instanceId.toLowerCase()}:latest`.replaceAll('__', '_1776_');
}

// SWE-bench's list, "csv" without its dot included.
const NON_TEST_EXTS = [
  '.json',
  '.png',
  'csv',
  '.txt',
  '.md',
  '.jpg',
  '.jpeg',
  '.pkl',
  '.yml',
  '.yaml',
  '.toml',
];

/**
 * The test files (or, for Django, test modules) the command is given: every file the test patch touches,
 * minus data files, as SWE-bench's get_test_directives does.
 */
export function testDirectives(repo: string, testPatch: string): string[] {
  const files = diffFiles(testPatch)
    .map(diffFilePath)
    .filter((f) => !NON_TEST_EXTS.some((ext) => f.endsWith(ext)));
  if (repo !== 'django/django') return files;
  return files.map((f) => {
    const module = f.endsWith('.py') ? f.slice(0, -3) : f;
    return (module.startsWith('tests/') ? module.slice('tests/'.length) : module).replaceAll('/', '.');
  });
}

/** Files the test patch changes that exist before it: the ones reset to base_commit around the tests. */
export function testFilesToReset(testPatch: string): string[] {
  return diffFiles(testPatch)
    .map((f: DiffFile) => f.oldPath)
    .filter((p): p is string => p !== null);
}
