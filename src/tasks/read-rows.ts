import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { createInterface } from 'node:readline';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { DatasetError, errorMessage } from '../errors.ts';

/** One row as read: its 1-based number (the line number in JSONL) and its value, or why it is unreadable. */
export type RawRow = { row: number; value: unknown } | { row: number; syntaxError: string };

export interface ReadRowsOptions {
  /** Parquet only: read just these columns (big sets such as R2E-Gym-Subset hold GBs you may not need). */
  columns?: string[];
}

export const DATA_FILE_EXTENSIONS = ['.jsonl', '.json', '.parquet'] as const;

/** The rows of a JSONL, JSON (an array of rows) or Parquet file, in file order. */
export async function* readRows(file: string, options: ReadRowsOptions = {}): AsyncGenerator<RawRow> {
  const ext = extname(file).toLowerCase();
  if (ext === '.jsonl') yield* readJsonl(file);
  else if (ext === '.json') yield* readJsonArray(file);
  else if (ext === '.parquet') yield* readParquet(file, options.columns);
  else {
    throw new DatasetError(`${file}: not a dataset file; expected one of ${DATA_FILE_EXTENSIONS.join(', ')}`);
  }
}

async function* readJsonl(file: string): AsyncGenerator<RawRow> {
  const lines = createInterface({
    input: createReadStream(file, 'utf8'),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let row = 0;
  for await (const line of lines) {
    row++;
    if (!line.trim()) continue;
    try {
      yield { row, value: JSON.parse(line) };
    } catch (e) {
      yield { row, syntaxError: `not valid JSON: ${errorMessage(e)}` };
    }
  }
}

async function* readJsonArray(file: string): AsyncGenerator<RawRow> {
  let rows: unknown;
  try {
    rows = JSON.parse(await readFile(file, 'utf8'));
  } catch (e) {
    throw new DatasetError(`${file}: not valid JSON: ${errorMessage(e)}`, { cause: e });
  }
  if (!Array.isArray(rows)) throw new DatasetError(`${file}: expected a JSON array of rows`);
  for (const [i, value] of rows.entries()) yield { row: i + 1, value };
}

/** Row group by row group, so a big file is never decoded all at once. */
async function* readParquet(file: string, columns: string[] | undefined): AsyncGenerator<RawRow> {
  let buffer: Awaited<ReturnType<typeof asyncBufferFromFile>>;
  let metadata: Awaited<ReturnType<typeof parquetMetadataAsync>>;
  try {
    buffer = await asyncBufferFromFile(file);
    metadata = await parquetMetadataAsync(buffer);
  } catch (e) {
    throw new DatasetError(`${file}: not a readable Parquet file: ${errorMessage(e)}`, { cause: e });
  }
  let start = 0;
  for (const group of metadata.row_groups) {
    const end = start + Number(group.num_rows);
    let objects: Record<string, unknown>[];
    try {
      objects = await parquetReadObjects({ file: buffer, metadata, rowStart: start, rowEnd: end, columns });
    } catch (e) {
      throw new DatasetError(`${file}: rows ${start + 1}-${end}: cannot decode: ${errorMessage(e)}`, {
        cause: e,
      });
    }
    for (const [i, value] of objects.entries()) yield { row: start + i + 1, value: plainValue(value) };
    start = end;
  }
}

/** INT64 cells decode as BigInt, which JSON cannot hold; they become numbers (strings if too big). */
function plainValue(value: unknown): unknown {
  if (typeof value === 'bigint') {
    return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  }
  if (Array.isArray(value)) return value.map(plainValue);
  if (value !== null && typeof value === 'object' && !(value instanceof Date) && !ArrayBuffer.isView(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plainValue(v)]));
  }
  return value;
}
