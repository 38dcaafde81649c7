import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { DatasetError, errorMessage } from '../../../src/errors.ts';

/** The kinds of bug the README table groups tasks by; a closed list so the table stays consistent. */
export const BUG_KINDS = [
  'off-by-one',
  'boundary',
  'wrong operator',
  'precedence',
  'missed case',
  'wrong default',
  'mutable default',
  'state not reset',
  'bad escaping',
  'leap year',
  'timezone',
  'wrong variable',
] as const;

const editSchema = z.strictObject({
  /** File of the clean project (or of the debug task) that the bug lives in. */
  path: z.string().min(1),
  /** Text of the clean file; it must occur exactly once. */
  fixed: z.string().min(1),
  /** What the buggy repository has in its place. */
  buggy: z.string(),
});

export type Edit = z.infer<typeof editSchema>;

const sweSourceSchema = z.strictObject({
  created_at: z
    .string()
    .regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, 'expected UTC time like 2025-02-03T09:14:00Z'),
  kind: z.enum(BUG_KINDS),
  /** One line for the README table. */
  summary: z.string().min(1),
  problem_statement: z.string().min(1),
  hints_text: z.string().default(''),
  edits: z.array(editSchema).min(1),
  /** Test functions (`tests/test_x.py::test_y`) that the agent's repository does not have. */
  hidden_tests: z
    .array(z.string().regex(/^[\w/.-]+\.py::\w+$/, 'expected tests/test_x.py::test_name'))
    .default([]),
});

const debugSourceSchema = z.strictObject({
  kind: z.enum(BUG_KINDS),
  summary: z.string().min(1),
  edits: z.array(editSchema.extend({ path: z.literal('solution.py') })).min(1),
});

export interface SweTaskSource extends z.infer<typeof sweSourceSchema> {
  /** `sandgym__<project>-<NNNN>`. */
  instanceId: string;
  project: string;
  /** `NNNN`. */
  number: string;
  file: string;
}

export interface DebugTaskSource extends z.infer<typeof debugSourceSchema> {
  /** `sandgym_<name>`. */
  taskId: string;
  dir: string;
}

const SWE_FILE = /^(\d{4})-[a-z0-9-]+\.yaml$/;
const PROJECT_NAME = /^[a-z0-9][a-z0-9_-]*$/;
const DEBUG_NAME = /^[a-z0-9][a-z0-9_]*$/;

/** Every `tasks/<project>/<NNNN>-<slug>.yaml`, sorted by instance id. */
export async function loadSweTaskSources(tasksDir: string): Promise<SweTaskSource[]> {
  const sources: SweTaskSource[] = [];
  for (const project of await sortedEntries(tasksDir)) {
    if (!PROJECT_NAME.test(project)) throw new DatasetError(`${join(tasksDir, project)}: not a project name`);
    for (const name of await sortedEntries(join(tasksDir, project))) {
      const file = join(tasksDir, project, name);
      const match = SWE_FILE.exec(name);
      if (!match) throw new DatasetError(`${file}: task files are named <NNNN>-<slug>.yaml`);
      const fields = parseSource(file, await readFile(file, 'utf8'), sweSourceSchema);
      const number = match[1]!;
      sources.push({ ...fields, instanceId: `sandgym__${project}-${number}`, project, number, file });
    }
  }
  const ids = sources.map((s) => s.instanceId);
  const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
  if (duplicate) throw new DatasetError(`${tasksDir}: two task files have the number of ${duplicate}`);
  return sources;
}

/** Every `debug/<name>/task.yaml` (beside its clean `solution.py` and `test.py`), sorted by name. */
export async function loadDebugTaskSources(debugDir: string): Promise<DebugTaskSource[]> {
  const sources: DebugTaskSource[] = [];
  for (const name of await sortedEntries(debugDir)) {
    const dir = join(debugDir, name);
    if (!DEBUG_NAME.test(name)) throw new DatasetError(`${dir}: debug task names use a-z, 0-9 and _`);
    const file = join(dir, 'task.yaml');
    const fields = parseSource(file, await readFile(file, 'utf8'), debugSourceSchema);
    sources.push({ ...fields, taskId: `sandgym_${name}`, dir });
  }
  return sources;
}

function parseSource<T>(file: string, text: string, schema: z.ZodType<T>): T {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new DatasetError(`${file}: not valid YAML: ${errorMessage(e)}`, { cause: e });
  }
  const parsed = schema.safeParse(doc);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new DatasetError(`${file}: invalid task:\n${issues.join('\n')}`);
  }
  return parsed.data;
}

async function sortedEntries(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((n) => !n.startsWith('.')).sort();
  } catch (e) {
    throw new DatasetError(`${dir}: cannot list it: ${errorMessage(e)}`, { cause: e });
  }
}
