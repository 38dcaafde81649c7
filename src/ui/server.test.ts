import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { TRAJECTORY_FORMAT, type Trajectory } from '../agent/types.ts';
import { startUiServer, type UiServer } from './server.ts';

/** A finished episode as the rollout engine stores it. */
function episode(taskId: string, sample: number, reward: number | null, turns: number): Trajectory {
  return {
    format: TRAJECTORY_FORMAT,
    sandgymVersion: '0.1.0',
    taskId,
    sample,
    policy: 'oracle',
    termination: reward === null ? 'error' : 'submitted',
    reward,
    grade: {
      status: reward === 1 ? 'resolved' : 'unresolved',
      reason: 'fixture',
      f2p: {
        passed: reward === 1 ? ['tests/test_a.py::test_fix'] : [],
        failed: reward === 1 ? [] : ['tests/test_a.py::test_fix'],
      },
      p2p: { passed: ['tests/test_a.py::test_old'], failed: [] },
    },
    patch: 'diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n',
    messages: [
      { role: 'system', content: 'You fix bugs.' },
      { role: 'user', content: `Fix ${taskId}` },
      ...Array.from({ length: turns }, (_, i) => [
        {
          role: 'assistant' as const,
          content: `turn ${i}`,
          tool_calls: [
            {
              id: `c${i}`,
              type: 'function' as const,
              function: { name: 'bash', arguments: '{"command":"ls"}' },
            },
          ],
        },
        { role: 'tool' as const, content: 'a.py', tool_call_id: `c${i}`, name: 'bash' },
      ]).flat(),
    ],
    turns: Array.from({ length: turns }, () => ({
      finishReason: 'tool_calls' as const,
      rawFinishReason: 'tool_calls',
      tokens: { promptIds: [1, 2, 3], completionIds: [4, 5], completionLogprobs: [-0.5, -1.5] },
      usage: { promptTokens: 3, completionTokens: 2 },
      toolCalls: [{ name: 'bash', arguments: '{"command":"ls"}' }],
      observationChars: 4,
      llmMs: 10,
      envMs: 5,
      sandboxMs: 4,
      totalMs: 16,
    })),
    timing: { startedAt: '2026-11-28T00:00:00.000Z', episodeMs: 100 * turns, prepareMs: 1, gradeMs: 7 },
  };
}

const jsonl = (rows: unknown[]) => rows.map((r) => `${JSON.stringify(r)}\n`).join('');

let root: string;
let ui: UiServer;

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'sandgym-ui-'));
  // A training run in progress: metrics, one step of rollouts (70 episodes: two pages), a validation.
  const train = join(root, 'exp', 'train-a');
  mkdirSync(join(train, 'rollouts'), { recursive: true });
  mkdirSync(join(train, 'validation'), { recursive: true });
  writeFileSync(join(train, 'config.yaml'), 'trainer:\n  experiment_name: train-a\n');
  writeFileSync(
    join(train, 'metrics.jsonl'),
    jsonl([
      { step: 0, time: '2026-11-28T00:00:00Z', 'val/init_resolved_rate': 0.25 },
      { step: 1, time: '2026-11-28T00:01:00Z', 'reward/resolved_rate': 0.5, 'actor/loss': 0.1 },
      { step: 1, time: '2026-11-28T00:01:10Z', 'val/rl_resolved_rate': 0.5 },
    ]),
  );
  writeFileSync(
    join(train, 'rollouts', 'step-000001.jsonl'),
    `${jsonl(Array.from({ length: 70 }, (_, i) => episode(`task-${i % 10}`, Math.floor(i / 10), i % 3 === 0 ? 1 : i % 7 === 0 ? null : 0, 1 + (i % 5))))}{"cut short`,
  );
  writeFileSync(join(train, 'validation', 'init-0.jsonl'), jsonl([episode('task-0', 0, 1, 2)]));
  // A finished `sandgym run`, last written long ago.
  const run = join(root, 'run-oracle');
  mkdirSync(run);
  writeFileSync(join(run, 'config.yaml'), 'llm:\n  policy: oracle\n');
  writeFileSync(join(run, 'trajectories.jsonl'), jsonl([episode('t1', 0, 1, 3), episode('t2', 0, 0, 1)]));
  writeFileSync(join(run, 'summary.json'), JSON.stringify({ resolvedRate: 0.5 }));
  // A training run nobody has written to for a day, without curve.json: stopped.
  const stale = join(root, 'stale');
  mkdirSync(stale);
  writeFileSync(join(stale, 'config.yaml'), '{}\n');
  writeFileSync(join(stale, 'metrics.jsonl'), jsonl([{ step: 3, time: 'x', 'actor/loss': 1 }]));
  const dayAgo = new Date(Date.now() - 86_400_000);
  for (const f of ['config.yaml', 'metrics.jsonl']) utimesSync(join(stale, f), dayAgo, dayAgo);
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
