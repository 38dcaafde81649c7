import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../config/index.ts';
import { sequencePolicy } from '../llm/scripted-policy.ts';
import { ScriptedServer } from '../llm/scripted-server.ts';
import { checkLlmServer } from './preflight.ts';

describe('checkLlmServer (the start of sandgym run and of train with llm.backend=tokens)', () => {
  it('passes a server serving the model and stops a run whose server does not', async () => {
    const server = await ScriptedServer.start({
      policy: sequencePolicy([{ content: 'x' }]),
      model: 'served',
    });
    const config = (model: string, url = server.baseUrl) =>
      loadConfig([], ['llm.backend=openai', `llm.base_url=${url}`, `llm.model=${model}`]);
    try {
      await checkLlmServer(config('served'));
      await assert.rejects(
        checkLlmServer(config('other')),
        (e: Error) =>
          e.message ===
          'llm: llm.model "other" is not served there; it serves served ("sandgym train --dry-run" checks everything a run needs)',
      );
      await checkLlmServer(loadConfig([], ['llm.backend=policy', 'llm.base_url=http://127.0.0.1:1/v1']));
    } finally {
      await server.close();
    }
    await assert.rejects(
      checkLlmServer(config('served')),
      /^SandgymError: llm: GET http:\/\/127\.0\.0\.1:\d+\/v1\/models: .*is the server running\?/,
    );
  });
});
