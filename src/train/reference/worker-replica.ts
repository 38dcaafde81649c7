import { Worker } from 'node:worker_threads';
import { SandgymError } from '../../errors.ts';
import type { SampledSequence, SamplingParams } from '../engine.ts';
import type { Merge } from './bpe/bpe-tokenizer.ts';
import type { ModelConfig } from './model-config.ts';
import type { Replica } from './replica.ts';
import type { ShardJob, ShardResult } from './shard-work.ts';

export type WorkerRequest =
  | { id: number; op: 'params'; params: Float32Array; version: number }
  | { id: number; op: 'shard'; job: ShardJob }
  | { id: number; op: 'sample'; prompt: number[]; params: SamplingParams; seeds: number[] };

export type WorkerResponse = { id: number; value: unknown } | { id: number; error: string };

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void };

// Distributes WorkerRequest over the union without collapsing it, so each op keeps its own fields.
type RequestBody = WorkerRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/**
 * A replica in a worker thread. The worker holds the process open only while a request is pending, so an
 * engine that is never closed does not hang its program; `close()` ends the thread.
 */
export class WorkerReplica implements Replica {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private version = -1;
  private failure: Error | undefined;

  private constructor(worker: Worker) {
    this.worker = worker;
    worker.on('message', (res: WorkerResponse) => this.settle(res));
    worker.on('error', (e) =>
      this.fail(new SandgymError(`reference engine worker failed: ${e.message}`, { cause: e })),
    );
    worker.on('exit', (code) => this.fail(new SandgymError(`reference engine worker exited (code ${code})`)));
  }

  static async create(config: ModelConfig, merges: readonly Merge[]): Promise<WorkerReplica> {
    const worker = new Worker(new URL('./engine-worker-boot.mjs', import.meta.url), {
      workerData: { config, merges },
    });
    const replica = new WorkerReplica(worker);
    await new Promise((resolve, reject) => replica.pending.set(0, { resolve, reject }));
    worker.unref();
    return replica;
  }

  async setParams(params: Float32Array, version: number): Promise<void> {
    if (version === this.version) return;
    await this.request({ op: 'params', params, version });
    this.version = version;
  }

  async runShard(job: ShardJob): Promise<ShardResult> {
    return (await this.request({ op: 'shard', job })) as ShardResult;
  }

  async sample(prompt: number[], params: SamplingParams, seeds: number[]): Promise<SampledSequence[]> {
    return (await this.request({ op: 'sample', prompt, params, seeds })) as SampledSequence[];
  }

  async close(): Promise<void> {
    this.failure ??= new SandgymError('reference engine is closed');
    await this.worker.terminate();
  }

  private request(body: RequestBody): Promise<unknown> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    if (this.pending.size === 0) this.worker.ref();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...body, id });
    });
  }

  private settle(res: WorkerResponse): void {
    const p = this.pending.get(res.id);
    if (!p) return;
    this.pending.delete(res.id);
    if (this.pending.size === 0) this.worker.unref();
    if ('error' in res) p.reject(new SandgymError(`reference engine worker: ${res.error}`));
    else p.resolve(res.value);
  }

  private fail(e: Error): void {
    this.failure ??= e;
    for (const p of this.pending.values()) p.reject(this.failure);
    this.pending.clear();
  }
}
