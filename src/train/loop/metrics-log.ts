import { appendFileSync } from 'node:fs';
import { errorMessage } from '../../errors.ts';

/** Where a run's metrics go: a JSONL file always, MLflow's REST API when MLFLOW_TRACKING_URI is set. */
export interface MetricsSink {
  log(step: number, metrics: Record<string, number>): Promise<void>;
  close(status: 'FINISHED' | 'FAILED' | 'KILLED'): Promise<void>;
}

export class JsonlMetrics implements MetricsSink {
  constructor(private readonly path: string) {}

  async log(step: number, metrics: Record<string, number>): Promise<void> {
    appendFileSync(this.path, `${JSON.stringify({ step, time: new Date().toISOString(), ...metrics })}\n`);
  }

  async close(): Promise<void> {}
}

/**
 * MLflow over its REST API (2.0): the experiment is looked up or created by name, one MLflow run per
 * sandgym run (its id kept in the run directory so a resumed run continues it), metrics sent with log-batch.
 * MLflow being down never stops training: a failed call is reported once and the sink goes quiet.
 */
export class MlflowMetrics implements MetricsSink {
  private broken = false;

  private constructor(
    private readonly base: string,
    readonly runId: string,
    private readonly warn: (message: string) => void,
  ) {}

  static async open(
    trackingUri: string,
    experiment: string,
    runName: string,
    existingRunId: string | undefined,
    warn: (message: string) => void,
    /** Run tags (`trainer.tags`), set when the run is created. */
    tags: Readonly<Record<string, string>> = {},
  ): Promise<MlflowMetrics> {
    const base = trackingUri.replace(/\/+$/, '');
    if (existingRunId) return new MlflowMetrics(base, existingRunId, warn);
    const found = await call(
      base,
      'GET',
      `experiments/get-by-name?experiment_name=${encodeURIComponent(experiment)}`,
    ).catch(() => undefined);
    const experimentId =
      (found as { experiment?: { experiment_id: string } } | undefined)?.experiment?.experiment_id ??
      ((await call(base, 'POST', 'experiments/create', { name: experiment })) as { experiment_id: string })
        .experiment_id;
    const run = (await call(base, 'POST', 'runs/create', {
      experiment_id: experimentId,
      run_name: runName,
      start_time: Date.now(),
      ...(Object.keys(tags).length
        ? { tags: Object.entries(tags).map(([key, value]) => ({ key, value })) }
        : {}),
    })) as { run: { info: { run_id: string } } };
    return new MlflowMetrics(base, run.run.info.run_id, warn);
  }

  async log(step: number, metrics: Record<string, number>): Promise<void> {
    if (this.broken) return;
    const timestamp = Date.now();
    const batch = Object.entries(metrics)
      .filter(([, v]) => Number.isFinite(v))
      .map(([key, value]) => ({ key: key.replaceAll(':', '_'), value, timestamp, step }));
    await this.safely(() =>
      call(this.base, 'POST', 'runs/log-batch', { run_id: this.runId, metrics: batch }),
    );
  }

  async close(status: 'FINISHED' | 'FAILED' | 'KILLED'): Promise<void> {
    await this.safely(() =>
      call(this.base, 'POST', 'runs/update', { run_id: this.runId, status, end_time: Date.now() }),
    );
  }

  private async safely(fn: () => Promise<unknown>): Promise<void> {
    if (this.broken) return;
    try {
      await fn();
    } catch (e) {
      this.broken = true;
      this.warn(`MLflow at ${this.base}: ${errorMessage(e)}; metrics go on to metrics.jsonl only`);
    }
  }
}

async function call(base: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${base}/api/2.0/mlflow/${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${text.slice(0, 200)}`);
  return text ? JSON.parse(text) : {};
}

/** Fans one log out to every sink. */
export function fanOut(sinks: MetricsSink[]): MetricsSink {
  return {
    log: async (step, m) => void (await Promise.all(sinks.map((s) => s.log(step, m)))),
    close: async (status) => void (await Promise.all(sinks.map((s) => s.close(status)))),
  };
}
