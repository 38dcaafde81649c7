import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { isConfigError } from '../errors.ts';
import { ChatTemplate } from './chat-template.ts';
import { loadChatTemplate, readModelFiles } from './load-chat-template.ts';
import type { ChatMessage, ToolSpec } from './types.ts';

export const TINY_CHATML = new URL('./fixtures/tiny-chatml/', import.meta.url).pathname;

const tool: ToolSpec = {
  type: 'function',
  function: { name: 'execute_bash', description: 'Run a command.', parameters: { type: 'object' } },
};

describe('ChatTemplate (tiny ChatML fixture)', () => {
  it('encodes with the BPE merges and decodes byte for byte', async () => {
    const template = await loadChatTemplate(TINY_CHATML);
    const pieces = template.encode(' the name').map((id) => template.decode([id]));
    assert.deepEqual(pieces, [' the', ' ', 'name'], 'merges by rank: Ġ+t, h+e, Ġt+he; n+a, na+m, nam+e');
    const text = 'héllo , wörld\t\n  ok';
    assert.equal(template.decode(template.encode(text)), text, 'no clean-up of tokenization spaces');
  });

  it('reads special tokens as single ids and knows the end-of-turn ids', async () => {
    const template = await loadChatTemplate(TINY_CHATML);
    const [start, end] = [template.encode('<|im_start|>'), template.encode('<|im_end|>')];
    assert.equal(start.length, 1);
    assert.equal(end.length, 1);
    assert.ok(template.eosTokenIds.includes(end[0]!), 'eos_token from tokenizer_config.json');
    assert.equal(template.eosTokenIds.length, 2, 'plus <|endoftext|> from generation_config.json');
    assert.equal(template.decode(end), '', 'special tokens are skipped by default');
    assert.equal(template.decode(end, { keepSpecialTokens: true }), '<|im_end|>');
    assert.equal(template.maxContextTokens, 2048);
  });

  it('renders ChatML with tools, tool calls and grouped tool results', async () => {
    const template = await loadChatTemplate(TINY_CHATML);
    const messages: ChatMessage[] = [
      { role: 'system', content: 'Fix it.' },
      { role: 'user', content: 'Go.' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'execute_bash', arguments: '{"cmd":"ls"}' } },
        ],
      },
      { role: 'tool', content: 'a.py', tool_call_id: 'c1' },
    ];
    const text = template.render(messages, { tools: [tool], addGenerationPrompt: true });
    assert.match(text, /^<\|im_start\|>system\nFix it\.\n\n# Tools/);
    assert.match(text, /"name": "execute_bash"/);
    assert.ok(
      text.endsWith(
        '<|im_start|>assistant\n<tool_call>\n{"name": "execute_bash", "arguments": {"cmd": "ls"}}\n</tool_call><|im_end|>\n' +
          '<|im_start|>user\n<tool_response>\na.py\n</tool_response><|im_end|>\n<|im_start|>assistant\n',
      ),
      text,
    );
  });

  it('prefers chat_template.jinja and picks the tool_use template when tools are given', async () => {
    const files = await readModelFiles(TINY_CHATML);
    const named = new ChatTemplate({
      ...files,
      tokenizerConfig: {
        ...files.tokenizerConfig,
        chat_template: [
          { name: 'default', template: 'plain' },
          { name: 'tool_use', template: 'tools:{{ tools | length }}' },
        ],
      },
    });
    const messages: ChatMessage[] = [{ role: 'user', content: 'x' }];
    assert.equal(named.render(messages, { addGenerationPrompt: false }), 'plain');
    assert.equal(named.render(messages, { tools: [tool], addGenerationPrompt: false }), 'tools:1');
    const jinja = new ChatTemplate({ ...files, chatTemplate: 'from file {{ flag }}' }, { flag: 'on' });
    assert.equal(jinja.render(messages, { addGenerationPrompt: false }), 'from file on');
  });

  it('says what is missing in a model directory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sandgym-llm-'));
    try {
      await assert.rejects(
        loadChatTemplate(dir),
        (e) => isConfigError(e) && /tokenizer\.json: cannot read it/.test(e.message),
      );
      const files = await readModelFiles(TINY_CHATML);
      await writeFile(join(dir, 'tokenizer.json'), JSON.stringify(files.tokenizer));
      await writeFile(
        join(dir, 'tokenizer_config.json'),
        JSON.stringify({ ...files.tokenizerConfig, chat_template: undefined }),
      );
      await assert.rejects(loadChatTemplate(dir), /no chat template; expected a chat_template\.jinja file/);
      await writeFile(join(dir, 'tokenizer_config.json'), '{ not json');
      await assert.rejects(loadChatTemplate(dir), /tokenizer_config\.json: not valid JSON/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a model without an end-of-turn token', async () => {
    const files = await readModelFiles(TINY_CHATML);
    assert.throws(
      () =>
        new ChatTemplate({
          ...files,
          tokenizerConfig: { ...files.tokenizerConfig, eos_token: null },
          generationConfig: {},
        }),
      /no end-of-turn token/,
    );
  });

  it('reports a template that raises', async () => {
    const files = await readModelFiles(TINY_CHATML);
    const strict = new ChatTemplate({
      ...files,
      chatTemplate: "{{ raise_exception('roles must alternate') }}",
    });
    assert.throws(
      () => strict.render([{ role: 'user', content: 'x' }], { addGenerationPrompt: true }),
      /refused the conversation: .*roles must alternate/,
    );
  });
});
