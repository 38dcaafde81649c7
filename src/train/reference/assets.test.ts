import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { Template } from '@huggingface/jinja';
import { Tokenizer } from '@huggingface/tokenizers';
import { ASSETS_DIR, assetFiles } from './build-assets.ts';
import { ByteTokenizer } from './byte-tokenizer.ts';

const readAsset = async (name: string) => JSON.parse(await readFile(`${ASSETS_DIR}${name}`, 'utf8'));

const TEXTS = [
  'plain ascii',
  '  leading spaces,\ttabs\nand\r\nnewlines  ',
  'unicode: héllo wörld ✓ 日本語 🙂',
  '<|im_start|>user\ndef f(x):\n    return x<|im_end|>\n<|im_start|>assistant\n',
  'specials glued<|endoftext|><|pad|>',
  'almost special <|im_start| and |im_end|>',
  '',
];

test('the checked-in assets are what build-assets.ts produces', async () => {
  for (const [name, json] of Object.entries(assetFiles()))
    assert.deepEqual(await readAsset(name), json, name);
});

test('tokenizer.json loads in @huggingface/tokenizers and agrees with ByteTokenizer both ways', async () => {
  const hf = new Tokenizer(await readAsset('tokenizer.json'), await readAsset('tokenizer_config.json'));
  const ours = new ByteTokenizer();
  for (const text of TEXTS) {
    const ids = hf.encode(text, { add_special_tokens: false }).ids;
    assert.deepEqual(ids, ours.encode(text), JSON.stringify(text));
    if (ids.length > 0) assert.equal(hf.decode(ids), text);
    assert.equal(ours.decode(ids), text);
  }
  assert.equal(hf.token_to_id('<|im_end|>'), 258);
  assert.equal(ours.specialTokens['<|im_end|>'], 258);
});

test('the chat template renders a tool-using conversation in ChatML with tool calls and responses', async () => {
  const config = await readAsset('tokenizer_config.json');
  const tools = [{ type: 'function', function: { name: 'view', parameters: { type: 'object' } } }];
  const messages = [
    { role: 'system', content: 'Fix the bug.' },
    { role: 'user', content: 'add.py is wrong' },
    {
      role: 'assistant',
      content: '',
      tool_calls: [{ type: 'function', function: { name: 'view', arguments: { path: 'add.py' } } }],
    },
    { role: 'tool', content: 'return a - b' },
    {
      role: 'assistant',
      content: 'Both.',
      tool_calls: [{ function: { name: 'edit', arguments: '{"x": 1}' } }, { name: 'submit', arguments: {} }],
    },
    { role: 'tool', content: 'ok' },
    { role: 'tool', content: 'done' },
  ];
  const text = new Template(config.chat_template).render({ messages, tools, add_generation_prompt: true });
  const expected = [
    '<|im_start|>system\nFix the bug.\n\nYou can call the tools described by these JSON schemas:\n<tools>\n',
    '{"type": "function", "function": {"name": "view", "parameters": {"type": "object"}}}\n</tools>\n',
    'To call a tool, answer with one JSON object per call, each inside its own tags:\n',
    '<tool_call>\n{"name": "<tool name>", "arguments": {<arguments as JSON>}}\n</tool_call><|im_end|>\n',
    '<|im_start|>user\nadd.py is wrong<|im_end|>\n',
    '<|im_start|>assistant\n<tool_call>\n{"name": "view", "arguments": {"path": "add.py"}}\n</tool_call><|im_end|>\n',
    '<|im_start|>user\n<tool_response>\nreturn a - b\n</tool_response><|im_end|>\n',
    '<|im_start|>assistant\nBoth.\n<tool_call>\n{"name": "edit", "arguments": {"x": 1}}\n</tool_call>\n',
    '<tool_call>\n{"name": "submit", "arguments": {}}\n</tool_call><|im_end|>\n',
    '<|im_start|>user\n<tool_response>\nok\n</tool_response>\n<tool_response>\ndone\n</tool_response><|im_end|>\n',
    '<|im_start|>assistant\n',
  ].join('');
  assert.equal(text, expected);
  const plain = new Template(config.chat_template).render({ messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(plain, '<|im_start|>user\nhi<|im_end|>\n');
});
