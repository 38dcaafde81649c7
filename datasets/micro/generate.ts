import { CATALOGUE, evaluate, type MicroFunction } from './catalogue.ts';

/**
 * Micro tasks: the embedded default's family of small, quick SWE tasks, small enough for a model trained
 * on a CPU in minutes. A module of three small functions, one with a one-token bug; a read-only pytest
 * file; an issue naming the wrong result and showing the function. Rows use the SWE-PDB/KodCode debugging
 * layout (files written into /testbed at reset, no image per task), with our gold patch and test lists.
 */
export interface MicroRow {
  task_id: string;
  problem_statement: string;
  extra_info: { entrypoint: string; files: { path: string; content: string }[]; task_name: string };
  patch: string;
  FAIL_TO_PASS: string;
  PASS_TO_PASS: string;
}

const MODULES = ['calc', 'mathutil', 'ops', 'helpers', 'arith'];

/** mulberry32: a small seeded generator, so the same seed always gives the same tasks. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

function pyValue(v: number | boolean): string {
  return typeof v === 'boolean' ? (v ? 'True' : 'False') : String(v);
}

function renderFunction(f: MicroFunction, body: string): string {
  return `def ${f.name}(${f.params.join(', ')}):\n    return ${body}\n`;
}

function renderTests(module: string, fns: MicroFunction[]): string {
  const tests = fns.map((f) => {
    const asserts = f.cases.map(
      (c) => `    assert ${f.name}(${c.join(', ')}) == ${pyValue(evaluate(f.body, f.params, c))}`,
    );
    return `def test_${f.name}():\n${asserts.join('\n')}\n`;
  });
  return `from ${module} import *\n\n\n${tests.join('\n\n')}`;
}

/** One task's row, or undefined when the drawn bug does not change the first case's result. */
function makeTask(r: () => number, index: number, split: string): { row: MicroRow; key: string } | undefined {
  const module = pick(r, MODULES);
  const fns: MicroFunction[] = [];
  while (fns.length < 3) {
    const f = pick(r, CATALOGUE);
    if (!fns.includes(f)) fns.push(f);
  }
  const buggyIndex = Math.floor(r() * fns.length);
  const buggy = fns[buggyIndex]!;
  const bug = pick(r, buggy.bugs);
  const shown = buggy.cases.find(
    (c) => evaluate(bug, buggy.params, c) !== evaluate(buggy.body, buggy.params, c),
  );
  if (!shown) return undefined;
  const path = `${module}.py`;
  const source = fns.map((f) => renderFunction(f, f === buggy ? bug : f.body)).join('\n\n');
  // The fix is a str_replace of the buggy line: it must occur once, even without its newline.
  if (source.split(`    return ${bug}`).length !== 2) return undefined;
  const line =
    fns.slice(0, buggyIndex).reduce((n, f) => n + renderFunction(f, f.body).split('\n').length + 1, 0) + 2;
  const call = `${buggy.name}(${shown.join(', ')})`;
  const actual = pyValue(evaluate(bug, buggy.params, shown));
  const expected = pyValue(evaluate(buggy.body, buggy.params, shown));
  const id = `micro_${split}_${String(index).padStart(4, '0')}`;
  return {
    key: `${module}|${fns.map((f) => f.name).join(',')}|${buggy.name}|${bug}`,
    row: {
      task_id: id,
      problem_statement: `${call} returns ${actual} but should return ${expected}.\n\n/testbed/${path}:\n${renderFunction(buggy, bug)}`,
      extra_info: {
        entrypoint: 'python -m pytest --tb=no -s test.py',
        files: [
          { path, content: source },
          { path: 'test.py', content: renderTests(module, fns) },
        ],
        task_name: id,
      },
      patch:
        `diff --git a/${path} b/${path}\n--- a/${path}\n+++ b/${path}\n@@ -${line} +${line} @@\n` +
        `-    return ${bug}\n+    return ${buggy.body}\n`,
      FAIL_TO_PASS: JSON.stringify([`test.py::test_${buggy.name}`]),
      PASS_TO_PASS: JSON.stringify(fns.filter((f) => f !== buggy).map((f) => `test.py::test_${f.name}`)),
    },
  };
}

/** `count` distinct tasks of a split; `exclude` holds keys of another split, so held-out tasks are new. */
export function generateMicroTasks(
  split: string,
  count: number,
  seed: number,
  exclude: ReadonlySet<string> = new Set(),
): { rows: MicroRow[]; keys: Set<string> } {
  const r = rng(seed);
  const rows: MicroRow[] = [];
  const keys = new Set<string>();
  while (rows.length < count) {
    const t = makeTask(r, rows.length, split);
    if (!t || keys.has(t.key) || exclude.has(t.key)) continue;
    keys.add(t.key);
    rows.push(t.row);
  }
  return { rows, keys };
}

/** The committed files: 240 training tasks and 60 held-out ones. */
export function renderMicroDataset(): { train: string; heldout: string } {
  const train = generateMicroTasks('train', 240, 1);
  const heldout = generateMicroTasks('heldout', 60, 2, train.keys);
  const jsonl = (rows: MicroRow[]) => rows.map((row) => JSON.stringify(row)).join('\n') + '\n';
  return { train: jsonl(train.rows), heldout: jsonl(heldout.rows) };
}
