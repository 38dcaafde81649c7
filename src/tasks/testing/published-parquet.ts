import { parquetWriteFile } from 'hyparquet-writer';

/**
 * Writes small Parquet files with the exact column types of the published datasets, for loader tests:
 * - SWE-bench Lite/Verified (princeton-nlp): every column a string, FAIL_TO_PASS/PASS_TO_PASS JSON text;
 * - R2E-Gym-Subset: strings, `modified_files`/`relevant_files` as list<string>, `modified_entity_summaries`
 *   as list<struct>, the `num_non_test_*` counts as int64, expected_output_json as JSON text.
 */

const text = (name: string) => ({
  name,
  type: 'BYTE_ARRAY',
  converted_type: 'UTF8',
  repetition_type: 'OPTIONAL',
});
const int64 = (name: string) => ({ name, type: 'INT64', repetition_type: 'OPTIONAL' });
const list = (name: string, element: object[], elementChildren?: number) => [
  { name, repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
  { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
  elementChildren === undefined
    ? element[0]
    : { name: 'element', repetition_type: 'OPTIONAL', num_children: elementChildren },
  ...(elementChildren === undefined ? [] : element),
];

export const SWEBENCH_COLUMNS = [
  'repo',
  'instance_id',
  'base_commit',
  'patch',
  'test_patch',
  'problem_statement',
  'hints_text',
  'created_at',
  'version',
  'FAIL_TO_PASS',
  'PASS_TO_PASS',
  'environment_setup_commit',
] as const;

/** SWE-bench Lite's layout; pass `difficulty` in the rows for Verified's. */
export function writeSwebenchParquet(filename: string, rows: Record<string, string | null>[]): void {
  const columns = [...SWEBENCH_COLUMNS, ...('difficulty' in (rows[0] ?? {}) ? ['difficulty'] : [])];
  parquetWriteFile({
    filename,
    columnData: columns.map((name) => ({ name, data: rows.map((r) => r[name] ?? null) })),
    schema: [{ name: 'schema', num_children: columns.length }, ...columns.map(text)],
  } as Parameters<typeof parquetWriteFile>[0]);
}

export interface R2eEntitySummary {
  ast_type_str: string;
  end_lineno: bigint;
  file_name: string;
  name: string;
  start_lineno: bigint;
  type: string;
}

export interface R2eSubsetRow {
  repo_name: string;
  docker_image: string;
  commit_hash: string;
  parsed_commit_content: string;
  execution_result_content: string;
  modified_files: string[];
  modified_entity_summaries: R2eEntitySummary[];
  relevant_files: string[];
  num_non_test_files: bigint;
  num_non_test_func_methods: bigint;
  num_non_test_lines: bigint;
  prompt: string;
  problem_statement: string;
  expected_output_json: string | null;
}

export function writeR2eSubsetParquet(filename: string, rows: R2eSubsetRow[]): void {
  const names = Object.keys(rows[0]!) as (keyof R2eSubsetRow)[];
  const schema = [
    { name: 'schema', num_children: names.length },
    ...names.flatMap((name) => {
      if (name === 'modified_files' || name === 'relevant_files') return list(name, [text('element')]);
      if (name === 'modified_entity_summaries') {
        const fields = ['ast_type_str', 'end_lineno', 'file_name', 'name', 'start_lineno', 'type'];
        return list(
          name,
          fields.map((f) => (f.endsWith('lineno') ? int64(f) : text(f))),
          fields.length,
        );
      }
      return [name.startsWith('num_') ? int64(name) : text(name)];
    }),
  ];
  parquetWriteFile({
    filename,
    columnData: names.map((name) => ({ name, data: rows.map((r) => r[name]) })),
    schema,
  } as Parameters<typeof parquetWriteFile>[0]);
}
