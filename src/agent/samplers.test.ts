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
});
