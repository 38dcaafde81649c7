import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '../../errors.ts';
import type { SamplingParams } from '../engine.ts';
import { Rng } from '../reference/rng.ts';
import { drawToken, resolveSampling } from '../reference/sampling.ts';
import { readSafetensors, type Tensor } from './safetensors.ts';

/** The shape of a decoder-only transformer as a Hugging Face `config.json` gives it. */
export interface HfModelConfig {
  architecture: 'qwen3' | 'qwen2' | 'llama';
  vocabSize: number;
  hiddenSize: number;
  intermediateSize: number;
  layers: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  rmsNormEps: number;
  ropeTheta: number;
  maxPositions: number;
  tiedEmbeddings: boolean;
}

const ARCHITECTURES: Record<string, HfModelConfig['architecture']> = {
  Qwen3ForCausalLM: 'qwen3',
  Qwen2ForCausalLM: 'qwen2',
  LlamaForCausalLM: 'llama',
};

/** `config.json` → the model's shape; anything this forward pass does not implement is refused by name. */
export function parseHfConfig(json: Record<string, unknown>, source: string): HfModelConfig {
  const architecture = ARCHITECTURES[(json.architectures as string[] | undefined)?.[0] ?? ''];
  if (!architecture) {
    throw new ConfigError(
      `${source}: architecture ${JSON.stringify(json.architectures)} is not one of ${Object.keys(ARCHITECTURES).join(', ')}`,
    );
  }
  const int = (key: string, fallback?: number): number => {
    const v = json[key] ?? fallback;
    if (!Number.isInteger(v) || (v as number) <= 0)
      throw new ConfigError(`${source}: ${key} must be a positive integer`);
    return v as number;
  };
  if (json.hidden_act !== undefined && json.hidden_act !== 'silu') {
    throw new ConfigError(`${source}: hidden_act "${json.hidden_act}" is not supported (silu only)`);
  }
  const rope = (json.rope_parameters ?? {}) as { rope_theta?: number; rope_type?: string };
  const scaling = (json.rope_scaling ?? null) as { rope_type?: string; type?: string } | null;
  const ropeType = rope.rope_type ?? scaling?.rope_type ?? scaling?.type ?? 'default';
  if (ropeType !== 'default') throw new ConfigError(`${source}: rope type "${ropeType}" is not supported`);
  if (json.use_sliding_window === true)
    throw new ConfigError(`${source}: sliding-window attention is not supported`);
  const hiddenSize = int('hidden_size');
  const heads = int('num_attention_heads');
  const config: HfModelConfig = {
    architecture,
    vocabSize: int('vocab_size'),
    hiddenSize,
    intermediateSize: int('intermediate_size'),
    layers: int('num_hidden_layers'),
    heads,
    kvHeads: int('num_key_value_heads', heads),
    headDim: int('head_dim', hiddenSize / heads),
    rmsNormEps: Number(json.rms_norm_eps ?? 1e-6),
    ropeTheta: Number(rope.rope_theta ?? json.rope_theta ?? 10000),
    maxPositions: int('max_position_embeddings'),
    tiedEmbeddings: json.tie_word_embeddings === true,
  };
  if (config.heads % config.kvHeads !== 0) {
    throw new ConfigError(`${source}: num_attention_heads must be a multiple of num_key_value_heads`);
  }
  return config;
}

interface Layer {
  inputNorm: Float32Array;
  postNorm: Float32Array;
  q: Linear;
  k: Linear;
  v: Linear;
  o: Linear;
  qNorm?: Float32Array;
  kNorm?: Float32Array;
  gate: Linear;
  up: Linear;
  down: Linear;
}

interface Linear {
  weight: Float32Array;
  bias?: Float32Array;
  rows: number;
  cols: number;
}

/** Keys and values of the positions seen so far, per layer: [position][kvHead * headDim]. */
export interface KvCache {
  keys: Float32Array[][];
  values: Float32Array[][];
}

/**
 * A Hugging Face causal language model (Qwen3, Qwen2 or Llama architecture) run on the CPU in float32:
 * RMSNorm, rotary position embeddings, grouped-query attention (with Qwen3's per-head q/k RMSNorm),
 * SwiGLU, tied or untied output head — the computation of transformers' modeling code, checked against
 * its logits on tiny random checkpoints. For sampling small models on any machine; slow on big ones.
 */
export class HfCausalLM {
  private readonly invFreq: Float32Array;

  private constructor(
    readonly config: HfModelConfig,
    private readonly embed: Float32Array,
    private readonly layers: Layer[],
    private readonly finalNorm: Float32Array,
    private readonly head: Linear,
  ) {
    const half = config.headDim / 2;
    this.invFreq = new Float32Array(half);
    for (let i = 0; i < half; i++) this.invFreq[i] = 1 / config.ropeTheta ** ((2 * i) / config.headDim);
  }

  /**
   * Loads `config.json` and the weights from a model directory: `model.safetensors`, or the shards that
   * `model.safetensors.index.json` lists.
   */
  static async load(dir: string): Promise<HfCausalLM> {
    let configJson: Record<string, unknown>;
    try {
      configJson = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8'));
    } catch (e) {
      throw new ConfigError(`${dir}/config.json: cannot read it (${(e as Error).message})`, { cause: e });
    }
    const config = parseHfConfig(configJson, join(dir, 'config.json'));
    const tensors = new Map<string, Tensor>();
    const files = await weightFiles(dir);
    for (const file of files) {
      const path = join(dir, file);
      let bytes: Uint8Array;
      try {
        bytes = await readFile(path);
      } catch (e) {
        throw new ConfigError(`${path}: cannot read the weights (${(e as Error).message})`, { cause: e });
      }
      for (const [name, tensor] of readSafetensors(bytes, path)) tensors.set(name, tensor);
    }
    return HfCausalLM.fromTensors(
      config,
      tensors,
      join(dir, files.length === 1 ? files[0]! : 'model.safetensors.index.json'),
    );
  }

  static fromTensors(config: HfModelConfig, tensors: Map<string, Tensor>, source: string): HfCausalLM {
    const take = (name: string, shape: number[]): Float32Array => {
      const t = tensors.get(name);
      if (!t) throw new ConfigError(`${source}: tensor ${name} is missing`);
      if (t.shape.join() !== shape.join()) {
        throw new ConfigError(`${source}: ${name} has shape [${t.shape}], config.json implies [${shape}]`);
      }
      return t.data;
    };
    const linear = (name: string, rows: number, cols: number): Linear => {
      const bias = tensors.get(`${name}.bias`)?.data;
      return { weight: take(`${name}.weight`, [rows, cols]), rows, cols, ...(bias ? { bias } : {}) };
    };
    const { hiddenSize: H, headDim: D, heads, kvHeads, intermediateSize: I, vocabSize: V } = config;
    const layers = Array.from({ length: config.layers }, (_, i): Layer => {
      const p = `model.layers.${i}`;
      const qk = config.architecture === 'qwen3';
      return {
        inputNorm: take(`${p}.input_layernorm.weight`, [H]),
        postNorm: take(`${p}.post_attention_layernorm.weight`, [H]),
        q: linear(`${p}.self_attn.q_proj`, heads * D, H),
        k: linear(`${p}.self_attn.k_proj`, kvHeads * D, H),
        v: linear(`${p}.self_attn.v_proj`, kvHeads * D, H),
        o: linear(`${p}.self_attn.o_proj`, H, heads * D),
        ...(qk
          ? {
              qNorm: take(`${p}.self_attn.q_norm.weight`, [D]),
              kNorm: take(`${p}.self_attn.k_norm.weight`, [D]),
            }
          : {}),
        gate: linear(`${p}.mlp.gate_proj`, I, H),
        up: linear(`${p}.mlp.up_proj`, I, H),
        down: linear(`${p}.mlp.down_proj`, H, I),
      };
    });
    const embed = take('model.embed_tokens.weight', [V, H]);
    const head =
      config.tiedEmbeddings && !tensors.has('lm_head.weight')
        ? { weight: embed, rows: V, cols: H }
        : linear('lm_head', V, H);
    return new HfCausalLM(config, embed, layers, take('model.norm.weight', [H]), head);
  }

  newCache(): KvCache {
    return { keys: this.layers.map(() => []), values: this.layers.map(() => []) };
  }

  /** Logits after `token` at the next position of `cache` (which it extends). */
  step(token: number, cache: KvCache): Float32Array {
    const { hiddenSize: H, headDim: D, heads, kvHeads, vocabSize } = this.config;
    if (!(Number.isInteger(token) && token >= 0 && token < vocabSize)) {
      throw new ConfigError(`token ${token} is outside the model's vocabulary of ${vocabSize}`);
    }
    const position = cache.keys[0]!.length;
    if (position >= this.config.maxPositions) {
      throw new ConfigError(`the sequence is longer than the model's ${this.config.maxPositions} positions`);
    }
    const x = this.embed.slice(token * H, (token + 1) * H);
    const group = heads / kvHeads;
    const scale = 1 / Math.sqrt(D);
    this.layers.forEach((layer, l) => {
      const h = rmsNorm(x, layer.inputNorm, this.config.rmsNormEps);
      const q = matvec(layer.q, h);
      const k = matvec(layer.k, h);
      const v = matvec(layer.v, h);
      for (let i = 0; i < heads; i++) {
        const head = q.subarray(i * D, (i + 1) * D);
        if (layer.qNorm) head.set(rmsNorm(head, layer.qNorm, this.config.rmsNormEps));
        this.rotate(head, position);
      }
      for (let i = 0; i < kvHeads; i++) {
        const head = k.subarray(i * D, (i + 1) * D);
        if (layer.kNorm) head.set(rmsNorm(head, layer.kNorm, this.config.rmsNormEps));
        this.rotate(head, position);
      }
      cache.keys[l]!.push(k);
      cache.values[l]!.push(v);
      const keys = cache.keys[l]!;
      const values = cache.values[l]!;
      const attended = new Float32Array(heads * D);
      const scores = new Float64Array(keys.length);
      for (let i = 0; i < heads; i++) {
        const kv = Math.floor(i / group) * D;
        let max = Number.NEGATIVE_INFINITY;
        for (let t = 0; t < keys.length; t++) {
          let s = 0;
          for (let d = 0; d < D; d++) s += q[i * D + d]! * keys[t]![kv + d]!;
          scores[t] = s * scale;
          if (scores[t]! > max) max = scores[t]!;
        }
        let sum = 0;
        for (let t = 0; t < keys.length; t++) {
          scores[t] = Math.exp(scores[t]! - max);
          sum += scores[t]!;
        }
        for (let t = 0; t < keys.length; t++) {
          const w = scores[t]! / sum;
          for (let d = 0; d < D; d++) attended[i * D + d]! += w * values[t]![kv + d]!;
        }
      }
      addInto(x, matvec(layer.o, attended));
      const m = rmsNorm(x, layer.postNorm, this.config.rmsNormEps);
      const gate = matvec(layer.gate, m);
      const up = matvec(layer.up, m);
      for (let j = 0; j < gate.length; j++) gate[j] = (gate[j]! / (1 + Math.exp(-gate[j]!))) * up[j]!;
      addInto(x, matvec(layer.down, gate));
    });
    return matvec(this.head, rmsNorm(x, this.finalNorm, this.config.rmsNormEps));
  }

  /** Logits at every position of `tokens`, as transformers' forward returns them. */
  forward(tokens: readonly number[]): Float32Array[] {
    const cache = this.newCache();
    return tokens.map((t) => this.step(t, cache));
  }

  /**
   * Tinker's `sample` shape (the `SamplingEngine` the token sampler's engine backend takes): `numSamples`
   * continuations of the prompt, each ending on a stop token id (kept) or at `max_tokens`, with the
   * logprob of each sampled token under the distribution it was drawn from.
   */
  async sample(
    promptTokens: number[],
    params: SamplingParams,
    numSamples: number,
  ): Promise<{ sequences: { stop_reason: string; tokens: number[]; logprobs: number[] }[] }> {
    const stops = new Set((params.stop ?? []).filter((s): s is number => typeof s === 'number'));
    if (params.stop?.some((s) => typeof s === 'string')) {
      throw new ConfigError('HfCausalLM.sample: stop strings are not supported; pass stop token ids');
    }
    const resolved = resolveSampling(params, this.config.vocabSize);
    const rng = new Rng(params.seed ?? 0);
    const sequences = [];
    for (let n = 0; n < numSamples; n++) {
      const cache = this.newCache();
      let logits: Float32Array = new Float32Array(0);
      for (const t of promptTokens) logits = this.step(t, cache);
      const tokens: number[] = [];
      const logprobs: number[] = [];
      let stopReason = 'length';
      while (tokens.length < params.max_tokens) {
        const { token, logprob } = drawToken(logits, resolved, rng);
        tokens.push(token);
        logprobs.push(logprob);
        if (stops.has(token)) {
          stopReason = 'stop';
          break;
        }
        if (tokens.length < params.max_tokens) logits = this.step(token, cache);
      }
      sequences.push({ stop_reason: stopReason, tokens, logprobs });
    }
    return { sequences };
  }

  /** Rotary embedding in transformers' layout: the head's two halves rotate as pairs (i, i + D/2). */
  private rotate(head: Float32Array, position: number): void {
    const half = head.length / 2;
    for (let i = 0; i < half; i++) {
      const angle = position * this.invFreq[i]!;
      const cos = Math.cos(angle);
      const sin = Math.sin(angle);
      const a = head[i]!;
      const b = head[i + half]!;
      head[i] = a * cos - b * sin;
      head[i + half] = b * cos + a * sin;
    }
  }
}

/** `model.safetensors`, or the shard files of `model.safetensors.index.json` (its `weight_map` values). */
async function weightFiles(dir: string): Promise<string[]> {
  let index: { weight_map?: Record<string, string> };
  try {
    index = JSON.parse(await readFile(join(dir, 'model.safetensors.index.json'), 'utf8'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return ['model.safetensors'];
    throw new ConfigError(`${dir}/model.safetensors.index.json: cannot read it (${(e as Error).message})`, {
      cause: e,
    });
  }
  const files = [...new Set(Object.values(index.weight_map ?? {}))];
  if (
    files.length === 0 ||
    files.some((f) => typeof f !== 'string' || f.includes('/') || f.startsWith('.'))
  ) {
    throw new ConfigError(
      `${dir}/model.safetensors.index.json: weight_map must name shard files in the same directory`,
    );
  }
  return files.sort();
}

function rmsNorm(x: Float32Array, weight: Float32Array, eps: number): Float32Array {
  let sum = 0;
  for (let i = 0; i < x.length; i++) sum += x[i]! * x[i]!;
  const inv = 1 / Math.sqrt(sum / x.length + eps);
  const out = new Float32Array(x.length);
  for (let i = 0; i < x.length; i++) out[i] = weight[i]! * (x[i]! * inv);
  return out;
}

/** W·x (+ b) for a row-major [rows, cols] W; four running sums per row let the JIT overlap the multiplies. */
function matvec(linear: Linear, x: Float32Array): Float32Array {
  const { weight, rows, cols, bias } = linear;
  const out = new Float32Array(rows);
  const tail = cols - (cols % 4);
  for (let r = 0; r < rows; r++) {
    const base = r * cols;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    for (let c = 0; c < tail; c += 4) {
      s0 += weight[base + c]! * x[c]!;
      s1 += weight[base + c + 1]! * x[c + 1]!;
      s2 += weight[base + c + 2]! * x[c + 2]!;
      s3 += weight[base + c + 3]! * x[c + 3]!;
    }
    for (let c = tail; c < cols; c++) s0 += weight[base + c]! * x[c]!;
    out[r] = (bias ? bias[r]! : 0) + (s0 + s1 + (s2 + s3));
  }
  return out;
}

function addInto(x: Float32Array, y: Float32Array): void {
  for (let i = 0; i < x.length; i++) x[i]! += y[i]!;
}
