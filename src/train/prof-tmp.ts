import { ReferenceEngine } from './reference/index.ts';

const e = await ReferenceEngine.create({ model: 'tiny', seed: 1 });
const seqs = Array.from({ length: 4 }, (_, i) => Array.from({ length: 1025 }, (_, t) => (t * 7 + i) % 256));
const data = seqs.map((s) => ({
  model_input: { chunks: [{ type: 'encoded_text' as const, tokens: s.slice(0, -1) }] },
  loss_fn_inputs: { target_tokens: { data: s.slice(1), dtype: 'int64' as const } },
}));
const cpu: number[] = [];
for (let i = 0; i < 4; i++) {
  const c = process.cpuUsage();
  await e.forwardBackward(data, 'cross_entropy');
  await e.optimStep();
  const u = process.cpuUsage(c);
  cpu.push((u.user + u.system) / 1000);
}
console.log('cpu ms per 4x1024 step', cpu.map((x) => x.toFixed(0)).join(' '));
const c = process.cpuUsage();
await e.sample([1, 2, 3], { max_tokens: 256, seed: 1 }, 8);
const u = process.cpuUsage(c);
console.log('sample 8x256 cpu ms', ((u.user + u.system) / 1000).toFixed(0));
