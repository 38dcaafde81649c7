import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadChatTemplate } from './load-chat-template.ts';
import { parseSseData } from './parse-sse.ts';
import { samplerPolicy, sequencePolicy } from './scripted-policy.ts';
import { ScriptedServer } from './scripted-server.ts';

const TINY_CHATML = new URL('./fixtures/tiny-chatml/', import.meta.url).pathname;

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe('ScriptedServer', () => {
  it('lists its model and refuses unknown routes, bad bodies and other models', async () => {
    const server = await ScriptedServer.start({
      policy: sequencePolicy([{ content: 'x' }]),
      model: 'tiny',
      maxModelLen: 64,
    });
    try {
      const models = (await (await fetch(`${server.baseUrl}/models`)).json()) as {
        data: { id: string; max_model_len: number }[];
      };
      assert.deepEqual(
        models.data.map((m) => [m.id, m.max_model_len]),
        [['tiny', 64]],
      );
      assert.equal((await post(`${server.baseUrl}/embeddings`, {})).status, 404);
      assert.equal((await post(`${server.baseUrl}/chat/completions`, '{oops')).status, 400);
      assert.equal(
        (await post(`${server.baseUrl}/chat/completions`, { model: 'tiny', messages: [] })).status,
        400,
      );
      const wrong = await post(`${server.baseUrl}/chat/completions`, {
        model: 'big',
        messages: [{ role: 'user', content: 'x' }],
      });
      assert.equal(wrong.status, 404);
      assert.match(wrong.text, /The model `big` does not exist/);
      assert.equal(
        (await post(`${server.baseUrl}/completions`, { model: 'tiny', prompt: 'text' })).status,
        400,
      );
      assert.equal(server.requests.length, 0, 'refused requests never reach the policy');
    } finally {
      await server.close();
    }
  });

  it('checks the API key when it has one', async () => {
    const server = await ScriptedServer.start({ policy: sequencePolicy([{ content: 'x' }]), apiKey: 'sk-1' });
    try {
      const body = { messages: [{ role: 'user', content: 'x' }] };
      assert.equal((await post(`${server.baseUrl}/chat/completions`, body)).status, 401);
      assert.equal(
        (await post(`${server.baseUrl}/chat/completions`, body, { authorization: 'Bearer sk-1' })).status,
        200,
      );
    } finally {
      await server.close();
    }
  });

  it('streams chat chunks ending in [DONE], with usage when asked', async () => {
    const server = await ScriptedServer.start({ policy: sequencePolicy([{ content: 'hello there' }]) });
    try {
      const res = await post(`${server.baseUrl}/chat/completions`, {
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
        stream_options: { include_usage: true },
      });
      assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
      const events = parseSseData(res.text);
      assert.equal(events.at(-1), '[DONE]');
      const chunks = events.slice(0, -1).map((e) => JSON.parse(e));
      const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
      assert.equal(text, 'hello there');
      assert.equal(chunks.at(-2).choices[0].finish_reason, 'stop');
      assert.deepEqual(chunks.at(-1).choices, []);
      assert.equal(chunks.at(-1).usage.total_tokens, 0);
    } finally {
      await server.close();
    }
  });

  it('encodes text replies to completions, ending them with the first stop id, and shows the policy the prompt', async () => {
    const template = await loadChatTemplate(TINY_CHATML);
    const seen: (string | undefined)[] = [];
    const server = await ScriptedServer.start({
      tokenizer: template,
      policy: (request) => {
        if (request.endpoint === 'completion') seen.push(request.promptText);
        return { content: 'the end' };
      },
    });
    try {
      const prompt = template.encode('<|im_start|>user\nhi<|im_end|>');
      const eos = template.eosTokenIds[0]!;
      const res = await post(`${server.baseUrl}/completions`, {
        prompt,
        return_token_ids: true,
        logprobs: 0,
        stop_token_ids: [eos],
      });
      const choice = JSON.parse(res.text).choices[0];
      assert.deepEqual(choice.token_ids, [...template.encode('the end'), eos]);
      assert.equal(choice.text, 'the end');
      assert.equal(choice.stop_reason, eos);
      assert.deepEqual(choice.prompt_token_ids, prompt);
      assert.equal(choice.logprobs.token_logprobs.length, choice.token_ids.length);
      assert.deepEqual(seen, ['user\nhi']);
    } finally {
      await server.close();
    }
  });

  it('answers 500 when the policy throws, and close() ends hanging requests', async () => {
    let calls = 0;
    const server = await ScriptedServer.start({
      policy: () => {
        calls++;
        if (calls === 1) throw new Error('policy bug');
        return { fault: 'hang' };
      },
    });
    const body = { messages: [{ role: 'user', content: 'x' }] };
    const failed = await post(`${server.baseUrl}/chat/completions`, body);
    assert.equal(failed.status, 500);
    assert.match(failed.text, /policy bug/);
    const hanging = post(`${server.baseUrl}/chat/completions`, body).then(
      () => 'answered',
      () => 'cut',
    );
    while (server.requests.length < 2) await new Promise((r) => setTimeout(r, 5));
    await server.close();
    assert.equal(await hanging, 'cut');
  });

  it('refuses token prompts for a policy that plays a Sampler', async () => {
    const never = { session: () => never, sample: () => assert.fail('not for completions') };
    const server = await ScriptedServer.start({ policy: samplerPolicy(never) });
    try {
      const res = await post(`${server.baseUrl}/completions`, { prompt: [1, 2] });
      assert.equal(res.status, 400);
      assert.match(res.text, /answers \/v1\/chat\/completions only/);
    } finally {
      await server.close();
    }
  });
});
