/**
 * sandgym's forward pass of Hugging Face checkpoints against transformers' own. The tiny random models
 * and their logits (fixtures/hf-tiny/) were made once by `scripts/make-qwen3-tiny.py` with transformers
 * and torch; this test only reads them.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EngineCompletionBackend } from '../../llm/engine-completion-backend.ts';
import { HfCausalLM } from './causal-lm.ts';

const FIXTURES = new URL('../../llm/fixtures/hf-tiny/', import.meta.url).pathname;

for (const [name, what] of [
  ['qwen3', 'Qwen3 (q/k norm, GQA, head_dim ≠ hidden/heads, tied embeddings, float32)'],
  ['llama', 'Llama (GQA, untied head, bfloat16 weights)'],
] as const) {
  describe(`HfCausalLM: ${what}`, () => {
    const dir = `${FIXTURES}${name}`;
    const golden = JSON.parse(readFileSync(`${dir}/logits.json`, 'utf8')) as {
      prompt: number[];
      logits: number[][];
    };

    it('gives the logits transformers gives, within 1e-4 at every position', async () => {
      const model = await HfCausalLM.load(dir);
      const logits = model.forward(golden.prompt);
      let worst = 0;
      logits.forEach((row, t) => {
        row.forEach((v, i) => {
          worst = Math.max(worst, Math.abs(v - golden.logits[t]![i]!));
        });
      });
      assert.ok(worst < 1e-4, `largest difference ${worst}`);
    });

    it('samples through the engine completion backend: stop ids end a turn, logprobs match the logits', async () => {
      const model = await HfCausalLM.load(dir);
      const backend = new EngineCompletionBackend(model);
      const greedy = await backend.complete(golden.prompt, {
        maxTokens: 5,
        temperature: 0,
        stopTokenIds: [],
      });
      const expectedFirst = golden.logits.at(-1)!.indexOf(Math.max(...golden.logits.at(-1)!));
      assert.equal(greedy.completionIds[0], expectedFirst, 'greedy takes the argmax of the last logits');
      assert.equal(greedy.completionIds.length, 5);
      assert.equal(greedy.finishReason, 'length');
      const stopped = await backend.complete(golden.prompt, {
        maxTokens: 5,
        temperature: 0,
        stopTokenIds: [expectedFirst],
      });
      assert.deepEqual(stopped.completionIds, [expectedFirst]);
      assert.equal(stopped.finishReason, 'stop');
      const sampled = await backend.complete(golden.prompt, {
        maxTokens: 1,
        temperature: 1,
        seed: 7,
        stopTokenIds: [],
      });
      const row = golden.logits.at(-1)!;
      const max = Math.max(...row);
      const logZ = max + Math.log(row.reduce((s, v) => s + Math.exp(v - max), 0));
      const token = sampled.completionIds[0]!;
      assert.ok(
        Math.abs(sampled.logprobs[0]! - (row[token]! - logZ)) < 1e-4,
        'logprob under softmax(logits)',
      );
    });
  });
}

/** Splits a safetensors file in two by tensor, as `save_pretrained(max_shard_size=…)` does, with its index. */
async function shard(source: string, dir: string): Promise<void> {
  const bytes = readFileSync(source);
  const headerLength = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + headerLength).toString('utf8')) as Record<
    string,
    { dtype: string; shape: number[]; data_offsets: [number, number] }
  >;
  const names = Object.keys(header).filter((n) => n !== '__metadata__');
  const halves = [names.slice(0, names.length / 2), names.slice(names.length / 2)];
  const weightMap: Record<string, string> = {};
  for (const [i, part] of halves.entries()) {
    const file = `model-0000${i + 1}-of-00002.safetensors`;
    const out: Record<string, unknown> = {};
    const chunks: Buffer[] = [];
    let offset = 0;
    for (const name of part) {
      const {
        dtype,
        shape,
        data_offsets: [b, e],
      } = header[name]!;
      chunks.push(bytes.subarray(8 + headerLength + b, 8 + headerLength + e));
      out[name] = { dtype, shape, data_offsets: [offset, offset + e - b] };
      offset += e - b;
      weightMap[name] = file;
    }
    const json = Buffer.from(JSON.stringify(out));
    const length = Buffer.alloc(8);
    length.writeBigUInt64LE(BigInt(json.length));
    await writeFile(join(dir, file), Buffer.concat([length, json, ...chunks]));
  }
  await writeFile(join(dir, 'model.safetensors.index.json'), JSON.stringify({ weight_map: weightMap }));
}

describe('HfCausalLM: sharded checkpoints', () => {
  it('reads the shards model.safetensors.index.json lists, with the same logits', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sandgym-shards-'));
    try {
      await copyFile(`${FIXTURES}qwen3/config.json`, join(dir, 'config.json'));
      await shard(`${FIXTURES}qwen3/model.safetensors`, dir);
      const whole = (await HfCausalLM.load(`${FIXTURES}qwen3`)).forward([1, 2, 3]);
      const sharded = (await HfCausalLM.load(dir)).forward([1, 2, 3]);
      assert.deepEqual(sharded, whole);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
