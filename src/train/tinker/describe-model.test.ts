import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { isConfigError } from '../../errors.ts';
import { ASSETS_DIR, ByteTokenizer } from '../reference/index.ts';
import { chooseBaseModel, describeModel } from './describe-model.ts';
import { REFERENCE_TOKENIZER_ID, resolveTokenizer } from './resolve-tokenizer.ts';
import { fixture } from './test-support.ts';

const caps = (...names: string[]) => ({
  supported_models: names.map((model_name) => ({ model_name, max_context_length: 4096 })),
});

test('the base model: the one asked for if served, else the server’s only one', () => {
  assert.equal(chooseBaseModel(undefined, caps('Qwen/Qwen3-8B'), 'u'), 'Qwen/Qwen3-8B');
  assert.equal(chooseBaseModel('b', caps('a', 'b'), 'u'), 'b');
  assert.equal(chooseBaseModel('b', { supported_models: [] }, 'u'), 'b');
  assert.throws(
    () => chooseBaseModel('c', caps('a', 'b'), 'http://x'),
    /does not serve base model "c"; it serves a, b/,
  );
  assert.throws(
    () => chooseBaseModel(undefined, caps('a', 'b'), 'http://x'),
    /serves several models \(a, b\); choose one as baseModel/,
  );
});

test('the engine info: hosted Tinker’s context from its capabilities, SkyRL’s from the setting or config.json, else an error', async () => {
  const tokenizer = { vocabSize: 151_669, dir: '/models/qwen' };
  const tinker = fixture('tinker-sdk-d595dc2.json').requests;
  const hosted = describeModel(
    'Qwen/Qwen3-8B',
    tinker.get_info.answer,
    tinker.get_server_capabilities.answer,
    tokenizer,
  );
  assert.deepEqual(hosted, {
    model_name: 'Qwen/Qwen3-8B',
    vocab_size: 151_669,
    max_seq_len: 32_768,
    param_count: 0,
    tokenizer_dir: '/models/qwen',
  });
  const skyrl = fixture('skyrl-a9564572.json');
  const info = skyrl.requests.get_info.answer;
  const caps = skyrl.get_server_capabilities.answer;
  assert.equal(describeModel('Qwen/Qwen3-8B', info, caps, tokenizer, 8192).max_seq_len, 8192);
  assert.throws(
    () => describeModel('Qwen/Qwen3-8B', info, caps, tokenizer),
    (e) => isConfigError(e) && /set engine\.tinker\.max_context_tokens/.test(e.message),
  );
  const dir = await mkdtemp(join(tmpdir(), 'sg-model-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ max_position_embeddings: 40_960 }));
  assert.equal(describeModel('Qwen/Qwen3-8B', info, caps, { ...tokenizer, dir }).max_seq_len, 40_960);
  const sandgym = {
    model_id: 'm',
    model_data: { vocab_size: 260, max_context_length: 1024, param_count: 561_152 },
  };
  assert.deepEqual(describeModel('reference-tiny', sandgym, { supported_models: [] }, tokenizer), {
    model_name: 'reference-tiny',
    vocab_size: 260,
    max_seq_len: 1024,
    param_count: 561_152,
    tokenizer_dir: '/models/qwen',
  });
});

test('the tokenizer: the setting, else the server’s; bundled for the reference models; conflicts and silence are errors', async () => {
  const choice = { baseModel: 'Qwen/Qwen3-8B', serverTokenizerId: undefined, configured: undefined };
  const reference = await resolveTokenizer({ ...choice, serverTokenizerId: REFERENCE_TOKENIZER_ID });
  assert.ok(reference.tokenizer instanceof ByteTokenizer);
  assert.equal(reference.dir, ASSETS_DIR);
  // SkyRL names none: the setting (here the bundled id) decides.
  const skyrl = await resolveTokenizer({ ...choice, configured: REFERENCE_TOKENIZER_ID });
  assert.ok(skyrl.tokenizer instanceof ByteTokenizer);
  const fromDir = await resolveTokenizer({
    ...choice,
    serverTokenizerId: 'Qwen/Qwen3-8B',
    configured: ASSETS_DIR,
  });
  assert.equal(fromDir.dir, ASSETS_DIR);
  const fetched: string[] = [];
  const hub = await resolveTokenizer({
    ...choice,
    serverTokenizerId: 'Qwen/Qwen3-8B',
    modelDir: async (id) => {
      fetched.push(id);
      return ASSETS_DIR;
    },
  });
  assert.deepEqual(fetched, ['Qwen/Qwen3-8B']);
  assert.equal(hub.dir, ASSETS_DIR);
  await assert.rejects(
    resolveTokenizer({ ...choice, serverTokenizerId: 'Qwen/Qwen3-8B', configured: 'Qwen/Qwen3-4B' }),
    (e) =>
      isConfigError(e) &&
      /"Qwen\/Qwen3-4B", but the server says .* uses tokenizer "Qwen\/Qwen3-8B"/.test(e.message),
  );
  await assert.rejects(
    resolveTokenizer(choice),
    (e) =>
      isConfigError(e) && /does not say which tokenizer .* set engine\.tinker\.tokenizer/.test(e.message),
  );
});
