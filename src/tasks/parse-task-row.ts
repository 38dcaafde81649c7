import { z } from 'zod';
import { parseDebugRow } from './parse-debug-row.ts';
import { parseR2eRow } from './parse-r2e-row.ts';
import { parseSweRow } from './parse-swe-row.ts';
import type { Task, TaskKind } from './types.ts';

export interface ParseRowOptions {
  /** Read every row as this kind instead of telling kinds apart by their columns. */
  kind?: TaskKind;
  /** Image of debugging tasks whose row names none. */
  debugImage?: string;
}

/** A row that is not a task: the field at fault (null when the row as a whole is) and what is wrong. */
export interface RowProblem {
  field: string | null;
  message: string;
}

export type RowResult = { ok: true; task: Task } | { ok: false; problem: RowProblem };

/**
 * Tells the layouts apart by the columns only each has: SWE-PDB's extra_info, R2E-Gym's
 * expected_output_json (without SWE-bench's test lists), SWE-bench's instance_id and test lists.
 */
export function detectKind(row: Record<string, unknown>): TaskKind | undefined {
  if ('extra_info' in row) return 'debug';
  if ('expected_output_json' in row && !('FAIL_TO_PASS' in row)) return 'r2e';
  if ('instance_id' in row || 'FAIL_TO_PASS' in row) return 'swe';
  if ('repo_name' in row && 'commit_hash' in row) return 'r2e';
  return undefined;
}

export function parseTaskRow(row: unknown, options: ParseRowOptions = {}): RowResult {
  if (typeof row !== 'object' || row === null || Array.isArray(row)) {
    return { ok: false, problem: { field: null, message: 'expected an object (one task per row)' } };
  }
  const record = row as Record<string, unknown>;
  const kind = options.kind ?? detectKind(record);
  if (!kind) {
    return {
      ok: false,
      problem: {
        field: null,
        message:
          'not a SWE-bench, R2E-Gym or debugging task: expected instance_id and FAIL_TO_PASS (SWE-bench), ' +
          'repo_name, commit_hash and expected_output_json (R2E-Gym), or task_id and extra_info (SWE-PDB)',
      },
    };
  }
  try {
    const task =
      kind === 'swe'
        ? parseSweRow(record)
        : kind === 'r2e'
          ? parseR2eRow(record)
          : parseDebugRow(record, { image: options.debugImage });
    return { ok: true, task };
  } catch (e) {
    if (!(e instanceof z.ZodError)) throw e;
    return { ok: false, problem: firstProblem(e, record) };
  }
}

function firstProblem(error: z.ZodError, row: Record<string, unknown>): RowProblem {
  const issue = error.issues[0]!;
  const field = issue.path.length ? issue.path.map(String).join('.') : null;
  const top = issue.path[0];
  const missing = typeof top === 'string' && (row[top] === undefined || row[top] === null);
  return { field, message: missing && issue.path.length === 1 ? 'missing' : issue.message };
}
