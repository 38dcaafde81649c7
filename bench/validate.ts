/**
 * npm run bench:validate — `sandgym validate` over the whole bundled dataset (SWE + debug tasks) on the
 * local provider and on Docker, in one run: every gold patch must resolve and every empty patch must not.
 * Images are built (or found in the cache) before the clock starts. Throughput is tasks per minute with the
 * same number of workers on both. The last line is one line of JSON.
 */
import { ensureTaskImages, loadDatasets } from '../src/cli/commands/datasets.ts';
import { validateTasks } from '../src/cli/commands/validate.ts';
import { createProvider } from '../src/sandbox/index.ts';

const WORKERS = 2;
const tasks = await loadDatasets(['bundled:swe', 'bundled:debug'], { skipInvalid: false });

async function bench(name: string) {
  const provider = await createProvider(name);
  try {
    await ensureTaskImages(tasks, provider);
    const t0 = performance.now();
    const results = await validateTasks(tasks, provider, { workers: WORKERS, timeoutMs: 600_000 });
    const minutes = (performance.now() - t0) / 60_000;
    const r = {
      ok: results.filter((v) => v.ok).length,
      gold: results.filter((v) => v.gold.status === 'resolved').length,
      empty: results.filter((v) => v.empty.status === 'resolved').length,
      perMin: tasks.length / minutes,
    };
    const bad = results
      .filter((v) => !v.ok)
      .map((v) => `${v.taskId} (gold ${v.gold.reason}; empty ${v.empty.reason})`);
    console.log(
      `${name}: ${r.ok}/${tasks.length} valid, ${r.perMin.toFixed(1)} tasks/min${bad.length ? `\n  failed: ${bad.join('\n  ')}` : ''}`,
    );
    return r;
  } finally {
    await provider.close();
  }
}

const local = await bench('local');
const docker = await bench('docker');
const round = (x: number) => Math.round(x * 10) / 10;
console.log(
  JSON.stringify({
    tasks: tasks.length,
    workers: WORKERS,
    gold_resolved: local.gold,
    empty_resolved: local.empty,
    docker_gold_resolved: docker.gold,
    docker_empty_resolved: docker.empty,
    local_tasks_per_min: round(local.perMin),
    docker_tasks_per_min: round(docker.perMin),
    ratio_local_over_docker: round(local.perMin / docker.perMin),
  }),
);
