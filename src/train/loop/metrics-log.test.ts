import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { JsonlMetrics, MlflowMetrics } from './metrics-log.ts';

interface Call {
  method: string;
  path: string;
  body: Record<string, unknown> | undefined;
}

/**
 * An MLflow tracking server's REST API 2.0, as far as the sink uses it: experiments by name (404
 * RESOURCE_DOES_NOT_EXIST when absent), runs, log-batch with MLflow's metric-key rule, update.
 */
async function fakeMlflow(): Promise<{ url: string; calls: Call[]; server: Server }> {
  const calls: Call[] = [];
  const experiments = new Map<string, string>([['existing', '7']]);
  let runs = 0;
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (b: Buffer) => {
      raw += b.toString();
    });
    req.on('end', () => {
      const url = new URL(req.url!, 'http://x');
      const path = url.pathname.replace('/api/2.0/mlflow/', '');
      const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : undefined;
      calls.push({ method: req.method!, path, body });
      const reply = (status: number, json: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(json));
      };
      if (path === 'experiments/get-by-name') {
        const id = experiments.get(url.searchParams.get('experiment_name') ?? '');
        return id
          ? reply(200, { experiment: { experiment_id: id } })
          : reply(404, { error_code: 'RESOURCE_DOES_NOT_EXIST', message: 'no such experiment' });
      }
      if (path === 'experiments/create') {
        const id = String(100 + experiments.size);
        experiments.set(body!.name as string, id);
        return reply(200, { experiment_id: id });
      }
      if (path === 'runs/create') return reply(200, { run: { info: { run_id: `run${++runs}` } } });
      if (path === 'runs/log-batch') {
        const bad = (body!.metrics as { key: string }[]).find((m) => !/^[\w\-. /]+$/.test(m.key));
        return bad
          ? reply(400, {
              error_code: 'INVALID_PARAMETER_VALUE',
              message: `Invalid metric name: '${bad.key}'`,
            })
          : reply(200, {});
      }
      if (path === 'runs/update') return reply(200, { run_info: {} });
      reply(404, { error_code: 'ENDPOINT_NOT_FOUND' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, calls, server };
}

describe('MLflow metrics sink', async () => {
  const mlflow = await fakeMlflow();
  after(() => mlflow.server.close());

  it('creates the experiment and a run, logs finite metrics under legal keys, and ends the run', async () => {
    mlflow.calls.length = 0;
    const warnings: string[] = [];
    const sink = await MlflowMetrics.open(mlflow.url, 'sandgym', 'micro', undefined, (w) => warnings.push(w));
    assert.equal(sink.runId, 'run1');
    await sink.log(3, { 'actor/loss': 0.5, 'loss:sum': 2, 'reward/mean': Number.NaN });
    await sink.close('FINISHED');
    assert.deepEqual(
      mlflow.calls.map((c) => `${c.method} ${c.path}`),
      [
        'GET experiments/get-by-name',
        'POST experiments/create',
        'POST runs/create',
        'POST runs/log-batch',
        'POST runs/update',
      ],
    );
    assert.equal(mlflow.calls[2]!.body!.experiment_id, '101');
    assert.equal(mlflow.calls[2]!.body!.run_name, 'micro');
    const batch = mlflow.calls[3]!.body as { run_id: string; metrics: Record<string, unknown>[] };
    assert.equal(batch.run_id, 'run1');
    assert.deepEqual(
      batch.metrics.map(({ key, value, step }) => ({ key, value, step })),
      [
        { key: 'actor/loss', value: 0.5, step: 3 },
        { key: 'loss_sum', value: 2, step: 3 },
      ],
    );
    assert.ok(batch.metrics.every((m) => typeof m.timestamp === 'number'));
    assert.deepEqual(
      { ...mlflow.calls[4]!.body, end_time: 0 },
      { run_id: 'run1', status: 'FINISHED', end_time: 0 },
    );
    assert.deepEqual(warnings, []);
  });

  it('uses an existing experiment, and a resumed run continues its MLflow run', async () => {
    mlflow.calls.length = 0;
    const fresh = await MlflowMetrics.open(mlflow.url, 'existing', 'r', undefined, () => {}, { team: 'rl' });
    assert.equal(mlflow.calls.filter((c) => c.path === 'experiments/create').length, 0);
    assert.equal(mlflow.calls.at(-1)!.body!.experiment_id, '7');
    assert.deepEqual(mlflow.calls.at(-1)!.body!.tags, [{ key: 'team', value: 'rl' }], 'trainer.tags');
    mlflow.calls.length = 0;
    const resumed = await MlflowMetrics.open(mlflow.url, 'existing', 'r', fresh.runId, () => {});
    assert.equal(resumed.runId, fresh.runId);
    assert.deepEqual(mlflow.calls, []);
  });

  it('a failing server is reported once and never stops training', async () => {
    const warnings: string[] = [];
    const down = await fakeMlflow();
    const sink = await MlflowMetrics.open(down.url, 'e', 'r', undefined, (w) => warnings.push(w));
    await new Promise<void>((r) => down.server.close(() => r()));
    await sink.log(1, { a: 1 });
    await sink.log(2, { a: 2 });
    await sink.close('FAILED');
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /MLflow at http:\/\/127\.0\.0\.1:\d+: .*metrics go on to metrics\.jsonl only/);
  });

  it('an HTTP error says what MLflow answered', async () => {
    const warnings: string[] = [];
    const sink = await MlflowMetrics.open(mlflow.url, 'e2', 'r', undefined, (w) => warnings.push(w));
    await sink.log(1, { 'bad*key': 1 });
    assert.match(warnings[0]!, /runs\/log-batch: HTTP 400 .*Invalid metric name: 'bad\*key'/);
  });
});

describe('JSONL metrics', () => {
  it('appends one JSON object per step', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'sg-metrics-')), 'metrics.jsonl');
    const sink = new JsonlMetrics(path);
    await sink.log(1, { a: 1 });
    await sink.log(2, { a: 0.5 });
    const rows = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      rows.map(({ step, a }) => ({ step, a })),
      [
        { step: 1, a: 1 },
        { step: 2, a: 0.5 },
      ],
    );
  });
});
