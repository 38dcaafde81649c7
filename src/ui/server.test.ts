import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { exportHtml } from './export.ts';
import { episode, makeFixtureRuns } from './fixture-runs.ts';
import { wilson95 } from './run-dir.ts';
import { startUiServer, type UiServer } from './server.ts';

let root: string;
let ui: UiServer;

before(async () => {
  root = makeFixtureRuns();
  ui = await startUiServer({ runsDir: root, host: '127.0.0.1', port: 0 });
});

after(async () => {
  await ui.close();
  rmSync(root, { recursive: true, force: true });
});

async function get(path: string, base = ui.url) {
  const res = await fetch(new URL(path, base));
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.text() };
}
const json = async (path: string) => {
  const r = await get(path);
  assert.equal(r.status, 200, r.body);
  return JSON.parse(r.body);
};

test('runs: each run with its kind, status, steps, latest held-out rate and episode count', async () => {
  const { runs } = await json('/api/runs');
  assert.deepEqual(
    runs.map((r: Record<string, unknown>) => [
      r.id,
      r.kind,
      r.status,
      r.steps,
      r.latestResolvedRate,
      r.episodes,
    ]),
    [
      ['exp/train-a', 'train', 'running', 1, 0.5, 71],
      ['run-oracle', 'run', 'finished', 0, 0.5, 2],
      ['stale', 'train', 'stopped', 3, null, 0],
    ],
  );
  assert.deepEqual(runs[0].config, { trainer: { experiment_name: 'train-a' } });
});

test('a run whose config.yaml is damaged is listed with its error; the others still are', async () => {
  const bad = join(root, 'zz-bad');
  mkdirSync(bad);
  writeFileSync(join(bad, 'config.yaml'), 'a: [unclosed\n');
  try {
    const { runs } = await json('/api/runs');
    assert.equal(runs.length, 4);
    assert.equal(runs[3].id, 'zz-bad');
    assert.match(runs[3].error, /flow|unclosed|Missing|end/i);
  } finally {
    rmSync(bad, { recursive: true });
  }
});

test('held-out rate per validation with its Wilson 95% interval', async () => {
  const { heldOut } = await json('/api/heldout?run=exp%2Ftrain-a');
  assert.equal(heldOut.length, 1);
  const [p] = heldOut;
  assert.deepEqual([p.label, p.resolved, p.scored, p.rate], ['init-0', 1, 1, 1]);
  // 1/1: Wilson's interval is [z²/(n+z²)... ] = [0.2065, 1].
  assert.ok(Math.abs(p.low - 0.2065) < 1e-3 && p.high === 1, JSON.stringify(p));
  assert.deepEqual(wilson95(0, 0), { low: 0, high: 1 });
  // 30/100: the textbook value (0.2189, 0.3958).
  const w = wilson95(30, 100);
  assert.ok(Math.abs(w.low - 0.2189) < 1e-3 && Math.abs(w.high - 0.3958) < 1e-3, JSON.stringify(w));
});

test('per step: termination reasons and mean time in the LLM, the sandbox and grading', async () => {
  const { steps } = await json('/api/steps?run=exp%2Ftrain-a');
  assert.equal(steps.length, 1);
  assert.equal(steps[0].step, 1);
  assert.equal(steps[0].episodes, 70);
  assert.equal(steps[0].terminations.submitted + steps[0].terminations.error, 70);
  assert.ok(steps[0].terminations.error > 0);
  assert.equal(steps[0].gradeMs, 7);
  assert.ok(steps[0].llmMs >= 10 && steps[0].llmMs <= 50);
});

test('metrics and episode sets of a run', async () => {
  const { metrics } = await json('/api/metrics?run=exp%2Ftrain-a');
  assert.deepEqual(
    metrics.map((m: Record<string, number>) => m.step),
    [0, 1, 1],
  );
  assert.deepEqual((await json('/api/sets?run=exp%2Ftrain-a')).sets, [
    'rollouts/step-000001',
    'validation/init-0',
  ]);
  assert.deepEqual((await json('/api/sets?run=run-oracle')).sets, ['trajectories']);
});

test('episode table: paged, filtered, ordered; a line cut short at the end is skipped', async () => {
  const base = '/api/episodes?run=exp%2Ftrain-a&set=rollouts%2Fstep-000001';
  const p1 = await json(`${base}&limit=50`);
  assert.equal(p1.total, 70);
  assert.equal(p1.rows.length, 50);
  assert.deepEqual(p1.rows[0], {
    key: 'task-0#0',
    task: 'task-0',
    sample: 0,
    reward: 1,
    termination: 'submitted',
    turns: 1,
    completionTokens: 2,
    episodeMs: 100,
    llmMs: 10,
    sandboxMs: 4,
    gradeMs: 7,
  });
  assert.equal((await json(`${base}&offset=50&limit=50`)).rows.length, 20);
  const errored = await json(`${base}&filter=errored`);
  assert.ok(
    errored.total > 0 && errored.rows.every((r: { termination: string }) => r.termination === 'error'),
  );
  const failed = await json(`${base}&filter=failed&task=task-1`);
  assert.ok(
    failed.rows.every((r: { task: string; reward: number }) => r.task === 'task-1' && r.reward === 0),
  );
  const longest = await json(`${base}&sort=turns&limit=3`);
  assert.deepEqual(
    longest.rows.map((r: { turns: number }) => r.turns),
    [5, 5, 5],
  );
});

test('a trajectory: messages, tool calls, diff, tests; token ids summarized', async () => {
  const t = await json('/api/trajectory?run=run-oracle&set=trajectories&key=t1%230');
  assert.equal(t.taskId, 't1');
  assert.equal(t.messages.length, 2 + 3 * 2);
  assert.equal(t.messages[2].tool_calls[0].function.name, 'bash');
  assert.match(t.patch, /\+x = 2/);
  assert.deepEqual(t.grade.f2p.passed, ['tests/test_a.py::test_fix']);
  assert.equal(t.turns[0].tokens, undefined);
  assert.equal(t.turns[0].meanLogprob, -1);
  assert.equal(t.turns[0].completionTokenIds, 2);
});

test('unknown runs, sets and episodes are 404s; paths outside the runs directory are unreachable', async () => {
  for (const path of [
    '/api/metrics?run=nope',
    '/api/metrics?run=..',
    '/api/episodes?run=run-oracle&set=..%2F..%2Fetc%2Fpasswd',
    '/api/episodes?run=run-oracle&set=config',
    '/api/trajectory?run=run-oracle&set=trajectories&key=t9%230',
    '/api/nothing?run=run-oracle',
    '/app.js/../../server.ts',
    '/server.ts',
  ]) {
    assert.equal((await get(path)).status, 404, path);
  }
});

test('the page and its assets are served from the package (uPlot from node_modules, no CDN)', async () => {
  const page = await get('/');
  assert.equal(page.status, 200);
  assert.match(page.type, /text\/html/);
  assert.doesNotMatch(page.body, /https?:\/\//);
  for (const src of page.body.matchAll(/(?:src|href)="([^"#]+)"/g)) {
    const asset = await get(`/${src[1]}`);
    assert.equal(asset.status, 200, src[1]);
    assert.ok(asset.body.length > 100, src[1]);
  }
  assert.match((await get('/uPlot.js')).body, /uPlot/);
});

test('on loopback a foreign Host (DNS rebinding) is refused', async () => {
  const port = new URL(ui.url).port;
  const status = await new Promise<number>((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: '/api/runs', headers: { host: 'evil.example:80' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    })
      .on('error', reject)
      .end();
  });
  assert.equal(status, 403);
});

test('bound beyond loopback: every request needs the printed token (query or the cookie the page set)', async () => {
  const wide = await startUiServer({ runsDir: root, host: '0.0.0.0', port: 0 });
  try {
    const url = new URL(wide.url);
    const token = url.searchParams.get('token');
    assert.ok(token && token.length >= 32);
    const at = `http://127.0.0.1:${url.port}`;
    assert.equal((await get('/', at)).status, 401);
    assert.equal((await get('/api/runs', at)).status, 401);
    assert.equal((await get('/api/runs?token=wrong', at)).status, 401);
    const page = await fetch(`${at}/?token=${token}`);
    assert.equal(page.status, 200);
    const cookie = page.headers.get('set-cookie')!.split(';')[0]!;
    const runs = await fetch(`${at}/api/runs`, { headers: { cookie } });
    assert.equal(runs.status, 200);
    assert.equal((await fetch(`${at}/api/runs`, { headers: { cookie: 'sandgym_ui=nope' } })).status, 401);
  } finally {
    await wide.close();
  }
});

test('--export: one file, nothing loaded from elsewhere, a trajectory cannot close its script element', async () => {
  const evil = join(root, 'zz-evil');
  mkdirSync(evil);
  writeFileSync(join(evil, 'config.yaml'), '{}\n');
  const t = { ...episode('e1', 0, 0, 1), patch: '+</script><script>alert(1)</script>' };
  writeFileSync(join(evil, 'trajectories.jsonl'), `${JSON.stringify(t)}\n`);
  let html: string;
  try {
    html = exportHtml(root);
  } finally {
    rmSync(evil, { recursive: true });
  }
  assert.match(html, /alert\(1\)/);
  assert.doesNotMatch(html, /<script src|<link /);
  assert.doesNotMatch(html, /(?:src|href)="https?:/);
  assert.match(html, /window\.SANDGYM_EXPORT = /);
  assert.match(html, /tests\/test_a\.py::test_fix/);
  // Every </script> in the file is one of the three the page itself has.
  assert.equal(html.match(/<\/script>/g)?.length, 3);
});
