import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { DatasetError, errorMessage } from '../errors.ts';
import { type ParseRowOptions, parseTaskRow, type RowProblem } from './parse-task-row.ts';
import { DATA_FILE_EXTENSIONS, type ReadRowsOptions, readRows } from './read-rows.ts';
import type { Task, TaskSource } from './types.ts';

export interface LoadTasksOptions extends ParseRowOptions, ReadRowsOptions {
  /** Skip rows that are not valid tasks, reporting each in `skipped`, instead of failing on the first. */
  skipInvalid?: boolean;
}

export interface SkippedRow extends TaskSource, RowProblem {}

export interface LoadedTasks {
  tasks: Task[];
  skipped: SkippedRow[];
  /** The data files read, in the order read. */
  files: string[];
}

/** A row that is not a valid task: which file, which row, which field. */
export class InvalidRowError extends DatasetError {
  override name = 'InvalidRowError';
  readonly file: string;
  readonly row: number;
  readonly field: string | null;

  constructor(problem: SkippedRow) {
    super(
      `${describeRow(problem)}; fix the row, or skip invalid rows (skipInvalid, --skip-invalid) and see them reported`,
    );
    this.file = problem.file;
    this.row = problem.row;
    this.field = problem.field;
  }
}

export function describeRow(p: SkippedRow): string {
  return `${p.file}: row ${p.row}: ${p.field === null ? '' : `field "${p.field}": `}${p.message}`;
}

/**
 * Tasks from dataset files: a .jsonl, .json or .parquet file, a directory of them (searched recursively,
 * read in path order, as the Hub lays out `data/test-00000-of-00001.parquet`), or a list of such paths.
 * Task ids must be unique across everything loaded.
 */
export async function loadTasks(
  paths: string | readonly string[],
  options: LoadTasksOptions = {},
): Promise<LoadedTasks> {
  const files: string[] = [];
  for (const path of typeof paths === 'string' ? [paths] : paths) files.push(...(await dataFiles(path)));
  const tasks: Task[] = [];
  const skipped: SkippedRow[] = [];
  const seen = new Map<string, TaskSource>();
  const reject = (problem: SkippedRow) => {
    if (!options.skipInvalid) throw new InvalidRowError(problem);
    skipped.push(problem);
  };
  for (const file of files) {
    for await (const raw of readRows(file, options)) {
      const where = { file, row: raw.row };
      if ('syntaxError' in raw) {
        reject({ ...where, field: null, message: raw.syntaxError });
        continue;
      }
      const result = parseTaskRow(raw.value, options);
      if (!result.ok) {
        reject({ ...where, ...result.problem });
        continue;
      }
      const first = seen.get(result.task.id);
      if (first) {
        reject({
          ...where,
          field: null,
          message: `duplicate task id "${result.task.id}" (first at ${first.file}: row ${first.row})`,
        });
        continue;
      }
      seen.set(result.task.id, where);
      tasks.push({ ...result.task, source: where });
    }
  }
  return { tasks, skipped, files };
}

async function dataFiles(path: string): Promise<string[]> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(path);
  } catch (e) {
    throw new DatasetError(`dataset ${path}: cannot read it (${errorMessage(e)})`, { cause: e });
  }
  if (!info.isDirectory()) return [path];
  const found = (await walk(path)).sort();
  if (found.length === 0) {
    throw new DatasetError(`dataset ${path}: no ${DATA_FILE_EXTENSIONS.join(', ')} files in this directory`);
  }
  return found;
}

async function walk(dir: string): Promise<string[]> {
  const entries: Dirent[] = await readdir(dir, { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await walk(path)));
    else if ((DATA_FILE_EXTENSIONS as readonly string[]).includes(extname(entry.name).toLowerCase()))
      files.push(path);
  }
  return files;
}
