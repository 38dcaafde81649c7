import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { DatasetError } from '../errors.ts';
import { InvalidRowError, loadTasks } from './load-tasks.ts';
import { writeR2eSubsetParquet, writeSwebenchParquet } from './testing/published-parquet.ts';
import type { R2eTask, SweTask } from './types.ts';

const dir = mkdtempSync(join(tmpdir(), 'sandgym-load-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function sweRow(n: number, extra: Record<string, string | null> = {}): Record<string, string | null> {
  return {
    repo: 'acme/widgets',
    instance_id: `acme__widgets-${n}`,
    base_commit: `${n}`.padStart(40, '0'),
    patch: `diff --git a/w${n}.py b/w${n}.py\n`,
    test_patch: `diff --git a/tests/test_w${n}.py b/tests/test_w${n}.py\n--- a/tests/test_w${n}.py\n+++ b/tests/test_w${n}.py\n`,
    problem_statement: `Widget ${n} is broken.`,
    hints_text: '',
    created_at: '2023-05-01T12:00:00Z',
    version: '0.4',
    FAIL_TO_PASS: JSON.stringify([`tests/test_w${n}.py::test_fix`]),
    PASS_TO_PASS: JSON.stringify([`tests/test_w${n}.py::test_keep[a b]`]),
    environment_setup_commit: 'f'.repeat(40),
    ...extra,
  };
}

test('SWE-bench Lite and Verified Parquet layouts load as tasks', async () => {
  const lite = join(dir, 'lite.parquet');
  writeSwebenchParquet(lite, [sweRow(1), sweRow(2, { hints_text: null })]);
  const verified = join(dir, 'verified.parquet');
  writeSwebenchParquet(verified, [sweRow(3, { difficulty: '<15 min fix' })]);
  const { tasks, skipped, files } = await loadTasks([lite, verified]);
  assert.deepEqual(skipped, []);
  assert.deepEqual(files, [lite, verified]);
  assert.deepEqual(
    tasks.map((t) => t.id),
    ['acme__widgets-1', 'acme__widgets-2', 'acme__widgets-3'],
  );
  const first = tasks[0] as SweTask;
  assert.deepEqual(first.PASS_TO_PASS, ['tests/test_w1.py::test_keep[a b]']);
  assert.equal((tasks[1] as SweTask).hintsText, '');
  assert.equal(tasks[2]!.raw.difficulty, '<15 min fix');
  assert.deepEqual(first.source, { file: lite, row: 1 });
});

test('R2E-Gym-Subset Parquet layout (lists, structs, int64) loads, raw cells JSON-safe', async () => {
  const file = join(dir, 'r2e.parquet');
  const row = {
    repo_name: 'pillow',
    docker_image: 'namanjain12/pillow_final:abc123',
    commit_hash: 'abc123',
    parsed_commit_content: '{"old_commit_hash": "x", "file_diffs": []}',
    execution_result_content: '{"test_file_codes": []}',
    modified_files: ['src/PIL/Image.py'],
    modified_entity_summaries: [
      {
        ast_type_str: 'FunctionDef',
        end_lineno: 120n,
        file_name: 'src/PIL/Image.py',
        name: 'Image.resize',
        start_lineno: 100n,
        type: 'method',
      },
    ],
    relevant_files: ['src/PIL/Image.py', 'src/PIL/ImageOps.py'],
    num_non_test_files: 1n,
    num_non_test_func_methods: 1n,
    num_non_test_lines: 4n,
    prompt: 'prompt text',
    problem_statement: '[ISSUE]\nResize drops alpha\n[/ISSUE]',
    expected_output_json: '{"TestImage.test_resize": "PASSED", "TestImage.test_old": "FAILED"}',
  };
  writeR2eSubsetParquet(file, [
    row,
    { ...row, commit_hash: 'def456', docker_image: 'namanjain12/pillow_final:def456' },
  ]);
  const { tasks } = await loadTasks(file);
  const task = tasks[0] as R2eTask;
  assert.equal(task.id, 'pillow-abc123');
  assert.deepEqual(task.expectedOutput, {
    'TestImage.test_resize': 'PASSED',
    'TestImage.test_old': 'FAILED',
  });
  assert.deepEqual(task.raw.modified_files, ['src/PIL/Image.py']);
  assert.deepEqual(task.raw.modified_entity_summaries, [
    { ...row.modified_entity_summaries[0], end_lineno: 120, start_lineno: 100 },
  ]);
  assert.equal(task.raw.num_non_test_lines, 4);
  assert.doesNotThrow(() => JSON.stringify(task.raw));
});

test('a bad Parquet row is a DatasetError naming the file, the row and the field', async () => {
  const file = join(dir, 'bad.parquet');
  writeR2eSubsetParquet(file, [
    {
      repo_name: 'scrapy',
      docker_image: 'namanjain12/scrapy_final:1',
      commit_hash: '1',
      parsed_commit_content: '{}',
      execution_result_content: '{}',
      modified_files: [],
      modified_entity_summaries: [],
      relevant_files: [],
      num_non_test_files: 0n,
      num_non_test_func_methods: 0n,
      num_non_test_lines: 0n,
      prompt: '',
      problem_statement: 'x',
      expected_output_json: null,
    },
  ]);
  await assert.rejects(loadTasks(file), (e: unknown) => {
    assert.ok(e instanceof InvalidRowError && e instanceof DatasetError);
    assert.equal(e.message.split(';')[0], `${file}: row 1: field "expected_output_json": missing`);
    assert.deepEqual([e.file, e.row, e.field], [file, 1, 'expected_output_json']);
    assert.match(e.message, /skip-invalid/);
    return true;
  });
});

test('JSONL: rows numbered by line, skipInvalid reports every skipped row, duplicates are rejected', async () => {
  const file = join(dir, 'mixed.jsonl');
  const lines = [
    JSON.stringify(sweRow(1)),
    '',
    '{"instance_id": "broken", ',
    JSON.stringify({ ...sweRow(2), FAIL_TO_PASS: 7 }),
    JSON.stringify(sweRow(1)),
    JSON.stringify(sweRow(4)),
  ];
  writeFileSync(file, `${lines.join('\n')}\n`);
  await assert.rejects(loadTasks(file), /mixed\.jsonl: row 3: not valid JSON/);
  const { tasks, skipped } = await loadTasks(file, { skipInvalid: true });
  assert.deepEqual(
    tasks.map((t) => [t.id, t.source?.row]),
    [
      ['acme__widgets-1', 1],
      ['acme__widgets-4', 6],
    ],
  );
  assert.deepEqual(
    skipped.map((s) => [s.row, s.field]),
    [
      [3, null],
      [4, 'FAIL_TO_PASS'],
      [5, null],
    ],
  );
  assert.match(skipped[2]!.message, /duplicate task id "acme__widgets-1" \(first at .*mixed\.jsonl: row 1\)/);
});

test('a directory is searched recursively in path order; .json arrays are read too', async () => {
  const root = join(dir, 'hub-layout');
  mkdirSync(join(root, 'data'), { recursive: true });
  writeSwebenchParquet(join(root, 'data', 'test-00001-of-00002.parquet'), [sweRow(12)]);
  writeSwebenchParquet(join(root, 'data', 'test-00000-of-00002.parquet'), [sweRow(11)]);
  writeFileSync(join(root, 'extra.json'), JSON.stringify([sweRow(13)]));
  writeFileSync(join(root, 'README.md'), '# not data');
  writeFileSync(join(root, '.hidden.jsonl'), 'not read');
  const { tasks } = await loadTasks(root);
  assert.deepEqual(
    tasks.map((t) => t.id),
    ['acme__widgets-11', 'acme__widgets-12', 'acme__widgets-13'],
  );
});

test('missing paths, empty directories and other file types are clear errors', async () => {
  await assert.rejects(loadTasks(join(dir, 'nope.jsonl')), /dataset .*nope\.jsonl: cannot read it/);
  const empty = join(dir, 'empty');
  mkdirSync(empty);
  await assert.rejects(loadTasks(empty), /no \.jsonl, \.json, \.parquet files/);
  const csv = join(dir, 'rows.csv');
  writeFileSync(csv, 'a,b\n');
  await assert.rejects(loadTasks(csv), /rows\.csv: not a dataset file/);
  const notParquet = join(dir, 'fake.parquet');
  writeFileSync(notParquet, 'PAR1 but not really');
  await assert.rejects(loadTasks(notParquet), /fake\.parquet: not a readable Parquet file/);
});

test('Parquet column selection reads only the columns asked for', async () => {
  const file = join(dir, 'lite-columns.parquet');
  writeSwebenchParquet(file, [sweRow(21)]);
  const { tasks } = await loadTasks(file, {
    columns: ['repo', 'instance_id', 'base_commit', 'problem_statement', 'FAIL_TO_PASS', 'PASS_TO_PASS'],
  });
  assert.equal(tasks[0]!.raw.hints_text, undefined);
  assert.equal(tasks[0]!.id, 'acme__widgets-21');
});
