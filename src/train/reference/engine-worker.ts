import { parentPort, workerData } from 'node:worker_threads';
import { errorMessage } from '../../errors.ts';
import { InlineReplica } from './replica.ts';
import type { WorkerRequest, WorkerResponse } from './worker-replica.ts';

// The worker side of WorkerReplica: an InlineReplica driven by messages, one request at a time.
const replica = new InlineReplica(workerData.config, workerData.merges);
const port = parentPort!;

port.on('message', async (req: WorkerRequest) => {
  try {
    let value: unknown;
    let transfer: ArrayBuffer[] = [];
    if (req.op === 'params') value = await replica.setParams(req.params, req.version);
    else if (req.op === 'shard') {
      const result = await replica.runShard(req.job);
      transfer = result.grads ? [result.grads.buffer as ArrayBuffer] : [];
      value = result;
    } else value = await replica.sample(req.prompt, req.params, req.seeds);
    port.postMessage({ id: req.id, value } satisfies WorkerResponse, transfer);
  } catch (e) {
    port.postMessage({ id: req.id, error: errorMessage(e) } satisfies WorkerResponse);
  }
});
port.postMessage({ id: 0, value: 'ready' } satisfies WorkerResponse);
