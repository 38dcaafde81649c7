/**
 * The bundled dataset's public face: where its files are, the row types, and the function that builds
 * a task's repository (what a sandbox image puts at /testbed).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type { DebugRow, SweRow } from './lib/swe-row.ts';
export {
  BASE_COMMIT_IDENTITY,
  type MaterializableRow,
  materializeProject,
  materializeRepo,
} from './materialize.ts';

const HERE = dirname(fileURLToPath(import.meta.url));

/** Absolute paths of the bundled dataset's files. */
export const BUNDLED = {
  /** SWE-bench-format rows, one JSON object a line. */
  sweJsonl: join(HERE, 'swe.jsonl'),
  /** SWE-PDB-format rows, one JSON object a line. */
  debugJsonl: join(HERE, 'debug.jsonl'),
  /** The clean projects, the `projectsDir` of `materializeRepo`. */
  projectsDir: join(HERE, 'projects'),
} as const;
