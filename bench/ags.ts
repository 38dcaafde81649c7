/**
 * npm run bench:ags — the AGS workflow against `sandgym serve`'s control plane, in this process: sync of the
 * bundled datasets' images to sandbox tools through Tencent Cloud's official SDK, cold (every tool made)
 * and warm (a rerun: every tool found), medians of 3 runs each, warm/cold ratio; a crash after a create
 * whose answer was lost, then a rerun (duplicate tools must be 0); then `validate bundled:swe` through the
 * e2b provider on the synced tools (SANDGYM_BENCH_AGS_TASKS limits the tasks). Last line: one line of JSON.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureTaskImages, loadDatasets } from '../src/cli/commands/datasets.ts';
import { validateTasks } from '../src/cli/commands/validate.ts';
import { type AgsApi, AgsClient, syncTools } from '../src/sandbox/ags/index.ts';
import { createE2BProvider } from '../src/sandbox/e2b/index.ts';
import { AgsKeyStore, ToolStore } from '../src/server/index.ts';
import { startTestServer } from '../src/server/testing/test-server.ts';

const ID = 'AKIDsandgymBenchKey00000000000000000';
const SECRET = 'sandgymBenchSecret00000000000000000';
const REGION = 'ap-guangzhou';
const E2B_KEY = 'sgk_ags-bench-key';
const RUNS = 3;

const dir = await mkdtemp(join(tmpdir(), 'sandgym-bench-ags-'));
const tasks = await loadDatasets(['bundled:swe', 'bundled:debug'], { skipInvalid: false });
const images = [...new Set(tasks.map((t) => t.image))];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function server() {
  return startTestServer({
    keys: [E2B_KEY],
    maxSandboxesPerKey: 16,
    ags: { keys: AgsKeyStore.of({ [ID]: SECRET }), tools: await ToolStore.open(), region: REGION },
  });
}
const client = (url: string) =>
  new AgsClient({ secretId: ID, secretKey: SECRET, region: REGION, endpoint: url });
const timed = async (f: () => Promise<unknown>) => {
  const t0 = performance.now();
  await f();
  return (performance.now() - t0) / 1000;
};

const cold: number[] = [];
const warm: number[] = [];
let toolsCreated = 0;
for (let i = 0; i < RUNS; i++) {
  const t = await server();
  try {
    const api = client(t.url);
    const mapPath = join(dir, `map-${i}.json`);
    let created = 0;
    cold.push(
      await timed(async () => {
        const r = await syncTools({ api, images, dataset: 'bundled', mapPath, jobs: 4 });
        created = r.filter((x) => x.action === 'created').length;
      }),
    );
    toolsCreated = created;
    warm.push(await timed(() => syncTools({ api, images, dataset: 'bundled', mapPath, jobs: 4 })));
  } finally {
    await t.close();
  }
}
console.log(
  `sync of ${images.length} images: cold median ${median(cold).toFixed(3)} s, warm ${median(warm).toFixed(3)} s`,
);

// A crash: the 10th create reaches the server, its answer never comes back, the process dies; then a rerun.
const t = await server();
let duplicates: number;
let resolved = 0;
let validated = 0;
try {
  const api = client(t.url);
  const mapPath = join(dir, 'map-crash.json');
  let creates = 0;
  const crashing: AgsApi = {
    async call(action, params) {
      const answer = await api.call(action, params);
      if (action === 'CreateSandboxTool' && ++creates === 10) throw new Error('crash');
      return answer as never;
    },
  };
  await syncTools({ api: crashing, images, dataset: 'bundled', mapPath, jobs: 1 }).catch(() => {});
  await syncTools({ api, images, dataset: 'bundled', mapPath, jobs: 4 });
  const listed = await api.call<{ TotalCount: number }>('DescribeSandboxToolList', { Limit: 100 });
  duplicates = listed.TotalCount - images.length;
  console.log(`crash after create 10, rerun: ${listed.TotalCount} tools for ${images.length} images`);

  let swe = tasks.filter((x) => x.kind === 'swe');
  const limit = Number(process.env.SANDGYM_BENCH_AGS_TASKS ?? swe.length);
  swe = swe.slice(0, limit);
  await ensureTaskImages(swe, t.provider);
  const e2b = await createE2BProvider(
    { options: { apiKey: E2B_KEY, apiUrl: t.url, sandboxUrl: t.url, templateMap: mapPath } },
    {},
  );
  try {
    const t0 = performance.now();
    const results = await validateTasks(swe, e2b, { workers: 2, timeoutMs: 600_000 });
    resolved = results.filter((r) => r.gold.status === 'resolved').length;
    validated = results.length;
    const bad = results.filter((r) => !r.ok).map((r) => r.taskId);
    console.log(
      `validate via AGS tools: ${resolved}/${validated} gold resolved, ${results.filter((r) => r.ok).length} valid ` +
        `in ${((performance.now() - t0) / 1000).toFixed(1)} s${bad.length ? `; invalid: ${bad.join(', ')}` : ''}`,
    );
  } finally {
    await e2b.close();
  }
} finally {
  await t.close();
  await rm(dir, { recursive: true, force: true });
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;
console.log(
  JSON.stringify({
    images: images.length,
    tools_created: toolsCreated,
    cold_s: r3(median(cold)),
    warm_s: r3(median(warm)),
    ratio_warm_over_cold: r3(median(warm) / median(cold)),
    duplicates_after_crash_rerun: duplicates,
    validate_resolved_via_ags: resolved,
    validate_tasks: validated,
  }),
);
