import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isConfigError } from '../../errors.ts';
import { ASSETS_DIR, ByteTokenizer } from '../reference/index.ts';
import { chooseBaseModel, describeModel } from './describe-model.ts';
import { REFERENCE_TOKENIZER_ID, resolveTokenizer } from './resolve-tokenizer.ts';

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

test('the engine info takes what the server says and fills the rest from the capabilities and tokenizer', () => {
  const tokenizer = { vocabSize: 151_669, dir: '/models/qwen' };
  const skyrl = { model_id: 'm', model_data: { base_model: 'Qwen/Qwen3-8B', model_name: 'Qwen/Qwen3-8B' } };
  assert.deepEqual(describeModel('Qwen/Qwen3-8B', skyrl, caps('Qwen/Qwen3-8B'), tokenizer), {
    model_name: 'Qwen/Qwen3-8B',
    vocab_size: 151_669,
    max_seq_len: 4096,
    param_count: 0,
    tokenizer_dir: '/models/qwen',
  });
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

test('the tokenizer: bundled for the reference models, from tokenizerDir otherwise, else an error saying how to get it', async () => {
  const reference = await resolveTokenizer('reference-tiny', REFERENCE_TOKENIZER_ID, undefined);
  assert.ok(reference.tokenizer instanceof ByteTokenizer);
  assert.equal(reference.dir, ASSETS_DIR);
  const fromDir = await resolveTokenizer('Qwen/Qwen3-8B', 'Qwen/Qwen3-8B', ASSETS_DIR);
  assert.equal(fromDir.dir, ASSETS_DIR);
  await assert.rejects(resolveTokenizer('Qwen/Qwen3-8B', 'Qwen/Qwen3-8B', undefined), (e) => {
    assert.ok(isConfigError(e));
    assert.match(
      e.message,
      /huggingface-cli download Qwen\/Qwen3-8B tokenizer\.json tokenizer_config\.json .* pass that directory as tokenizerDir/,
    );
    return true;
  });
});
