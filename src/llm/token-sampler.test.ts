import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { ChatTemplate } from './chat-template.ts';
import { EngineCompletionBackend, type SamplingEngine } from './engine-completion-backend.ts';
import { HttpCompletionBackend } from './http-completion-backend.ts';
import { loadChatTemplate } from './load-chat-template.ts';
import { type ScriptedFault, type ScriptedReply, sequencePolicy } from './scripted-policy.ts';
import { ScriptedServer } from './scripted-server.ts';
import { TokenSampler, type TokenSamplerOptions } from './token-sampler.ts';
import type { ChatMessage, SampleResult, ToolSpec } from './types.ts';

const TINY_CHATML = new URL('./fixtures/tiny-chatml/', import.meta.url).pathname;
/** The reference engine's model assets, once `src/train` ships them. */
const REFERENCE_ASSETS = new URL('../train/reference/assets/', import.meta.url).pathname;

const bash: ToolSpec = {
  type: 'function',
  function: { name: 'execute_bash', parameters: { type: 'object', properties: { cmd: { type: 'string' } } } },
};

const opening: ChatMessage[] = [
  { role: 'system', content: 'You fix bugs in the repository.' },
  { role: 'user', content: 'The tests fail; find out why.' },
];

const callLs =
  'Let me look.\n<tool_call>\n{"name": "execute_bash", "arguments": {"cmd": "ls"}}\n</tool_call>';

async function setup(
  template: ChatTemplate,
  steps: (ScriptedReply | ScriptedFault)[],
  options: Partial<TokenSamplerOptions> = {},
) {
  // Assets without a stated context window still exercise the token path.
  const maxContextTokens = options.maxContextTokens ?? template.maxContextTokens ?? 4096;
  const server = await ScriptedServer.start({
    policy: sequencePolicy(steps),
    model: 'tiny',
    tokenizer: template,
    maxModelLen: maxContextTokens,
  });
  const backend = new HttpCompletionBackend({
    baseUrl: server.baseUrl,
    model: 'tiny',
    timeoutMs: 5000,
    retry: { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 1000 },
  });
  const sampler = new TokenSampler({
    template,
    backend,
    maxTokensPerTurn: 256,
    ...options,
    maxContextTokens,
  });
  return { server, sampler, done: () => server.close() };
}

/** The conversation after `result`, as the agent loop builds it: the reply, then the tool's output. */
function continueWith(messages: ChatMessage[], result: SampleResult, toolOutput: string): ChatMessage[] {
  const call = result.message.tool_calls?.[0];
  return [...messages, result.message, { role: 'tool', content: toolOutput, tool_call_id: call?.id }];
}

function startsWith(ids: number[], prefix: number[]): boolean {
  return prefix.length <= ids.length && prefix.every((id, i) => ids[i] === id);
}

const templates: [string, string, string | false][] = [
  ['tiny ChatML fixture', TINY_CHATML, false],
  [
    'reference model assets',
    REFERENCE_ASSETS,
    !existsSync(`${REFERENCE_ASSETS}tokenizer.json`) && `no ${REFERENCE_ASSETS}tokenizer.json yet`,
  ],
];

for (const [name, dir, skip] of templates) {
  describe(`TokenSampler over HTTP (${name})`, { skip }, () => {
    it('renders turn 0, sends token ids and parses the tool call from the decoded text', async () => {
      const template = await loadChatTemplate(dir);
      const { server, sampler, done } = await setup(template, [{ content: callLs }]);
      try {
        const result = await sampler.sample({ messages: opening, tools: [bash], temperature: 0.7, seed: 3 });
        const expectedPrompt = template.encode(
          template.render(opening, { tools: [bash], addGenerationPrompt: true }),
        );
        const sent = server.requests[0]!;
        assert.equal(sent.endpoint, 'completion');
        assert.deepEqual(sent.endpoint === 'completion' && sent.promptIds, expectedPrompt);
        assert.deepEqual(sent.body.stop_token_ids, template.eosTokenIds);
        assert.equal(sent.body.return_token_ids, true);
        assert.equal(sent.body.logprobs, 0);
        assert.equal(sent.body.temperature, 0.7);
        assert.equal(sent.body.seed, 3);
        assert.deepEqual(result.tokens?.promptIds, expectedPrompt);
        assert.equal(
          result.tokens?.completionIds.at(-1),
          template.eosTokenIds[0],
          'the end-of-turn id is kept',
        );
        assert.equal(result.tokens?.completionLogprobs.length, result.tokens?.completionIds.length);
        assert.equal(result.rawText, callLs);
        assert.equal(result.message.content, 'Let me look.');
        assert.deepEqual(result.message.tool_calls?.[0]?.function, {
          name: 'execute_bash',
          arguments: '{"cmd":"ls"}',
        });
        assert.equal(result.finishReason, 'tool_calls');
        assert.equal(result.rawFinishReason, 'stop');
      } finally {
        await done();
      }
    });

    it('extends the previous prompt and completion each turn, matching what the template renders', async () => {
      const template = await loadChatTemplate(dir);
      const second = '<tool_call>\n{"name": "execute_bash", "arguments": {"cmd": "cat a.py"}}\n</tool_call>';
      const { server, sampler, done } = await setup(template, [
        { content: callLs },
        { content: second },
        { content: 'Fixed.' },
      ]);
      try {
        let messages = opening;
        const turns: SampleResult[] = [];
        for (const output of ['a.py  b.py', 'def f():\n    return 1', '']) {
          const result = await sampler.sample({ messages, tools: [bash] });
          turns.push(result);
          messages = continueWith(messages, result, output);
        }
        for (let i = 1; i < turns.length; i++) {
          const previous = turns[i - 1]!.tokens!;
          assert.ok(
            startsWith(turns[i]!.tokens!.promptIds, [...previous.promptIds, ...previous.completionIds]),
            `turn ${i}`,
          );
          const sent = server.requests[i]!;
          assert.deepEqual(sent.endpoint === 'completion' && sent.promptIds, turns[i]!.tokens!.promptIds);
        }
        // The model wrote its turns exactly as the fixture's template would, so the kept tokens read as a render.
        const last = turns[2]!.tokens!;
        const rendered = template.render(messages.slice(0, -2), { tools: [bash], addGenerationPrompt: true });
        if (dir === TINY_CHATML)
          assert.equal(template.decode(last.promptIds, { keepSpecialTokens: true }), rendered);
        assert.equal(turns[2]!.finishReason, 'stop');
        assert.equal(turns[2]!.message.content, 'Fixed.');
      } finally {
        await done();
      }
    });

    it('closes a turn cut at max_tokens with the template’s own end-of-turn text', async () => {
      const template = await loadChatTemplate(dir);
      const { sampler, done } = await setup(template, [{ content: callLs }, { content: 'ok' }]);
      try {
        const cut = await sampler.sample({ messages: opening, tools: [bash], maxTokens: 4 });
        assert.equal(cut.finishReason, 'length');
        assert.equal(cut.tokens?.completionIds.length, 4);
        assert.equal(cut.toolCallErrors, undefined, 'no tool call started within 4 tokens');
        const next = await sampler.sample({ messages: continueWith(opening, cut, 'go on'), tools: [bash] });
        const bridge = next.tokens!.promptIds.slice(cut.tokens!.promptIds.length + 4);
        const bridgeText = template.decode(bridge, { keepSpecialTokens: true });
        assert.ok(bridgeText.startsWith('<|im_end|>'), bridgeText);
        assert.ok(bridgeText.endsWith('<|im_start|>assistant\n'), bridgeText);
      } finally {
        await done();
      }
    });
  });
}

describe('TokenSampler budgets', () => {
  it('caps each turn by the trajectory budget left, then stops without a request', async () => {
    const template = await loadChatTemplate(TINY_CHATML);
    const { server, sampler, done } = await setup(template, [{ content: callLs }], {
      maxTrajectoryTokens: 100,
    });
    try {
      const first = await sampler.sample({ messages: opening, tools: [bash] });
      const used = first.tokens!.completionIds.length;
      assert.equal(server.requests[0]!.endpoint === 'completion' && server.requests[0]!.maxTokens, 100);
      const second = await sampler.sample({ messages: continueWith(opening, first, 'x'), tools: [bash] });
      const bridged = second.tokens!.promptIds.length - first.tokens!.promptIds.length - used;
      const sent = server.requests[1]!;
      assert.equal(sent.endpoint === 'completion' && sent.maxTokens, 100 - used - bridged);
      assert.ok(
        100 - used - bridged > 0 && 100 - used - bridged < used,
        'the fixture leaves a short second turn',
      );
      assert.equal(second.finishReason, 'length', 'the budget cut the second turn');
      const third = await sampler.sample({
        messages: continueWith(continueWith(opening, first, 'x'), second, 'y'),
        tools: [bash],
      });
      assert.equal(third.overflow, 'token_budget');
      assert.equal(third.finishReason, 'length');
      assert.equal(third.tokens, undefined);
      assert.equal(server.requests.length, 2, 'no request once the budget is spent');
    } finally {
      await done();
    }
  });

  it('never sends a prompt that fills the context window', async () => {
    const template = await loadChatTemplate(TINY_CHATML);
    const promptLength = template.encode(
      template.render(opening, { tools: [bash], addGenerationPrompt: true }),
    ).length;
    const { server, sampler, done } = await setup(template, [{ content: callLs }], {
      maxContextTokens: promptLength + 5,
    });
    try {
      const first = await sampler.sample({ messages: opening, tools: [bash] });
      assert.equal(first.finishReason, 'length');
      assert.equal(first.tokens?.completionIds.length, 5, 'max_tokens cut to the context left');
      const second = await sampler.sample({ messages: continueWith(opening, first, 'out'), tools: [bash] });
      assert.equal(second.overflow, 'context');
      assert.equal(second.rawFinishReason, 'context');
      assert.equal(server.requests.length, 1, 'the over-long prompt was not sent');
      const tooLong = new TokenSampler({
        template,
        backend: fail(),
        maxTokensPerTurn: 8,
        maxContextTokens: promptLength,
      });
      assert.equal((await tooLong.sample({ messages: opening, tools: [bash] })).overflow, 'context');
    } finally {
      await done();
    }
  });
});

/** A backend that must not be called. */
function fail() {
  return new EngineCompletionBackend({
    sample: () => assert.fail('no completion should be requested'),
  });
}

describe('TokenSampler sessions', () => {
  /** An in-process engine that answers each prompt with fixed text, recording the prompts. */
  function engine(template: ChatTemplate, text: string) {
    const prompts: number[][] = [];
    const sampling: SamplingEngine = {
      async sample(promptTokens, params) {
        prompts.push(promptTokens);
        const tokens = [...template.encode(text), params.stop![0] as number];
        return { sequences: [{ tokens, logprobs: tokens.map(() => -0.1), stop_reason: 'stop' }] };
      },
    };
    return { prompts, backend: new EngineCompletionBackend(sampling) };
  }

  it('samples through the training engine in process', async () => {
    const template = await loadChatTemplate(TINY_CHATML);
    const { backend } = engine(template, 'Done.');
    const sampler = new TokenSampler({ template, backend, maxTokensPerTurn: 16 });
    const result = await sampler.sample({ messages: opening });
    assert.equal(result.message.content, 'Done.');
    assert.deepEqual(result.tokens?.completionLogprobs.slice(0, 1), [-0.1]);
  });

  it('re-renders when the history was rewritten, and resamples a resent turn from the same prompt', async () => {
    const template = await loadChatTemplate(TINY_CHATML);
    const { prompts, backend } = engine(template, callLs);
    const sampler = new TokenSampler({ template, backend, maxTokensPerTurn: 64 });
    const first = await sampler.sample({ messages: opening, tools: [bash] });
    await sampler.sample({ messages: opening, tools: [bash] });
    assert.deepEqual(prompts[1], prompts[0], 'a resend replays the same prompt');
    const edited = { ...first.message, content: 'I looked.' };
    await sampler.sample({ messages: [...opening, edited, { role: 'tool', content: 'x' }], tools: [bash] });
    const kept = [...prompts[0]!, ...first.tokens!.completionIds];
    assert.ok(!startsWith(prompts[2]!, kept), 'a rewritten reply cannot be continued');
    const rendered = template.render([...opening, edited, { role: 'tool', content: 'x' }], {
      tools: [bash],
      addGenerationPrompt: true,
    });
    assert.deepEqual(prompts[2], template.encode(rendered));
  });

  it('gives each trajectory its own state: session() starts empty, fork() branches', async () => {
    const template = await loadChatTemplate(TINY_CHATML);
    // Spaced unlike the template, as models often write: only kept tokens can reproduce it.
    const { prompts, backend } = engine(
      template,
      '<tool_call>{"name":"execute_bash","arguments":{"cmd":"ls"}}</tool_call>',
    );
    const root = new TokenSampler({ template, backend, maxTokensPerTurn: 64 });
    const first = await root.sample({ messages: opening, tools: [bash] });
    const branch = root.fork();
    const fresh = root.session();
    const next = continueWith(opening, first, 'a.py');
    await branch.sample({ messages: next, tools: [bash] });
    await root.sample({ messages: continueWith(opening, first, 'b.py'), tools: [bash] });
    await fresh.sample({ messages: next, tools: [bash] });
    const kept = [...prompts[0]!, ...first.tokens!.completionIds];
    assert.ok(startsWith(prompts[1]!, kept), 'the fork continues the shared turn');
    assert.ok(startsWith(prompts[2]!, kept), 'the original continues too');
    assert.notDeepEqual(prompts[1], prompts[2]);
    assert.ok(!startsWith(prompts[3]!, kept), 'a new session renders from scratch');
  });

  it('refuses two turns at once on one session', async () => {
    const template = await loadChatTemplate(TINY_CHATML);
    const { backend } = engine(template, 'x');
    const sampler = new TokenSampler({ template, backend, maxTokensPerTurn: 8 });
    const first = sampler.sample({ messages: opening });
    await assert.rejects(
      sampler.sample({ messages: opening }),
      /before the last call returned; give each trajectory its own session/,
    );
    await first;
  });

  it('reports unreadable tool calls for a corrective observation', async () => {
    const template = await loadChatTemplate(TINY_CHATML);
    const { backend } = engine(
      template,
      '<tool_call>{"name": "execute_bash", "arguments": {cmd}}</tool_call>',
    );
    const result = await new TokenSampler({ template, backend, maxTokensPerTurn: 64 }).sample({
      messages: opening,
      tools: [bash],
    });
    assert.equal(result.message.tool_calls, undefined);
    assert.equal(result.finishReason, 'stop');
    assert.match(result.toolCallErrors?.[0] ?? '', /not valid JSON/);
  });

  it('checks its options', async () => {
    const template = await loadChatTemplate(TINY_CHATML);
    const { backend } = engine(template, 'x');
    assert.throws(
      () => new TokenSampler({ template, backend, maxTokensPerTurn: 0 }),
      /maxTokensPerTurn must be a positive integer/,
    );
  });
});
