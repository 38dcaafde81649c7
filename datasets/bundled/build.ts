/**
 * Generates the bundled dataset from its authored sources: `swe.jsonl` (SWE-bench format, over the
 * projects in projects/, tasks in tasks/<project>/) and `debug.jsonl` (SWE-PDB/KodCode format, tasks in
 * debug/<name>/), and the task tables of README.md. Every task is run in the sandboxes' Python (a
 * Debian bookworm rootfs under bubblewrap) and validated; any problem fails the build.
 *
 *   node --import tsx datasets/bundled/build.ts [--jobs 2] [--rootfs <dir>]
 *                                               [--only <id>,<id>] [--keep]
 *
 * `--only` builds and checks the named tasks without writing anything; `--keep` keeps the work
 * directory (it is always kept when something fails).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ConfigError, DatasetError, errorMessage } from '../../src/errors.ts';
import { buildDebugRow } from './lib/build-debug-task.ts';
import { buildSweRow } from './lib/build-swe-task.ts';
import { checkReport } from './lib/check-report.ts';
import { mapSettled } from './lib/map-settled.ts';
import { loadProject, type ProjectInfo } from './lib/project-info.ts';
import { spliceTaskTables } from './lib/readme-table.ts';
import { baseImageRootfs, runPytest } from './lib/run-pytest.ts';
import type { DebugRow, SweRow } from './lib/swe-row.ts';
import { loadDebugTaskSources, loadSweTaskSources } from './lib/task-source.ts';

const HERE = dirname(fileURLToPath(import.meta.url));

interface Job<R> {
  id: string;
  run: (workDir: string) => Promise<R>;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      jobs: { type: 'string', default: '2' },
      rootfs: { type: 'string' },
      only: { type: 'string' },
      keep: { type: 'boolean', default: false },
    },
  });
  const jobs = Number(values.jobs);
  if (!Number.isInteger(jobs) || jobs < 1)
    throw new ConfigError(`--jobs must be a positive integer, got "${values.jobs}"`);
  const rootfs = values.rootfs ?? (await baseImageRootfs());
  if (!rootfs) {
    throw new ConfigError(
      'no root filesystem to run pytest in: build the base image (sandgym images build sandgym/base) or pass --rootfs <dir>',
    );
  }
  const only = values.only ? new Set(values.only.split(',')) : undefined;
  const projectsDir = join(HERE, 'projects');
  const sweSources = await loadSweTaskSources(join(HERE, 'tasks'));
  const debugSources = await loadDebugTaskSources(join(HERE, 'debug'));
  if (only) {
    const known = new Set([...sweSources.map((s) => s.instanceId), ...debugSources.map((d) => d.taskId)]);
    const unknown = [...only].filter((id) => !known.has(id));
    if (unknown.length > 0) throw new ConfigError(`--only: no task ${unknown.join(', ')}`);
  }
  const workRoot = await mkdtemp(join(tmpdir(), 'sandgym-bundled-'));
  const started = Date.now();

  const projectNames = [...new Set(sweSources.map((s) => s.project))];
  const projects = await runJobs<ProjectInfo>(
    projectNames.map((name) => ({
      id: `projects/${name}`,
      run: (dir) => loadCheckedProject(projectsDir, name, dir, rootfs),
    })),
    jobs,
    workRoot,
  );
  if (!projects.ok) return fail(workRoot);
  const byName = new Map(projects.values.map((p) => [p.name, p]));

  const selected = <T extends { id: string }>(items: T[]) =>
    items.filter((item) => !only || only.has(item.id));
  const swe = await runJobs<SweRow>(
    selected(sweSources.map((s) => ({ ...s, id: s.instanceId }))).map((s) => ({
      id: s.id,
      run: (workDir) => buildSweRow(s, { projectsDir, rootfs, workDir, project: byName.get(s.project)! }),
    })),
    jobs,
    workRoot,
  );
  const debug = await runJobs<DebugRow>(
    selected(debugSources.map((d) => ({ ...d, id: d.taskId }))).map((d) => ({
      id: d.id,
      run: (workDir) => buildDebugRow(d, { rootfs, workDir }),
    })),
    jobs,
    workRoot,
  );
  if (!swe.ok || !debug.ok) return fail(workRoot);

  if (!only) {
    await writeJsonl(join(HERE, 'swe.jsonl'), swe.values);
    await writeJsonl(join(HERE, 'debug.jsonl'), debug.values);
    const readmePath = join(HERE, 'README.md');
    await writeFile(
      readmePath,
      spliceTaskTables(await readFile(readmePath, 'utf8'), sweSources, debugSources),
    );
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const wrote = only ? 'checked only, nothing written' : 'wrote swe.jsonl, debug.jsonl and the README tables';
  console.log(
    `${swe.values.length} SWE tasks and ${debug.values.length} debugging tasks valid in ${seconds} s; ${wrote}`,
  );
  if (values.keep) console.log(`work directory kept: ${workRoot}`);
  else await rm(workRoot, { recursive: true, force: true });
  return 0;
}

async function loadCheckedProject(projectsDir: string, name: string, workDir: string, rootfs: string) {
  const project = await loadProject(projectsDir, name, workDir);
  const run = await runPytest(join(workDir, `${name}-clean`), [], { rootfs, label: `projects/${name}` });
  checkReport(run, `projects/${name}`);
  if (run.exitCode !== 0)
    throw new DatasetError(`projects/${name}: the clean project's tests must all pass:\n${run.log}`);
  return project;
}

async function runJobs<R extends object>(
  jobs: Job<R>[],
  limit: number,
  workRoot: string,
): Promise<{ ok: boolean; values: R[] }> {
  const results = await mapSettled(jobs, limit, async (job) => {
    const value = await job.run(await mkdtemp(join(workRoot, `${job.id.replaceAll('/', '_')}-`)));
    console.log(`ok    ${job.id}${describe(value)}`);
    return value;
  });
  let ok = true;
  results.forEach((result, i) => {
    if (result.status === 'rejected') {
      ok = false;
      console.error(`FAIL  ${jobs[i]!.id}: ${errorMessage(result.reason)}`);
    }
  });
  return { ok, values: results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : [])) };
}

function describe(value: object): string {
  if (!('FAIL_TO_PASS' in value) || !('PASS_TO_PASS' in value)) return '';
  const count = (json: unknown) => (JSON.parse(String(json)) as unknown[]).length;
  return `  FAIL_TO_PASS ${count(value.FAIL_TO_PASS)}  PASS_TO_PASS ${count(value.PASS_TO_PASS)}`;
}

async function writeJsonl(path: string, rows: readonly object[]): Promise<void> {
  await writeFile(path, rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
}

function fail(workRoot: string): number {
  console.error(`build failed; work directory kept for inspection: ${workRoot}`);
  return 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    console.error(`build failed: ${errorMessage(e)}`);
    process.exitCode = 1;
  },
);
