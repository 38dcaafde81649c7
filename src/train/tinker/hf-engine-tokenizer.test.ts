import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ASSETS_DIR, ByteTokenizer } from '../reference/index.ts';
import { loadHfTokenizer } from './hf-engine-tokenizer.ts';

test('a Hugging Face tokenizer directory gives the same ids and text as the engine’s own tokenizer', async () => {
  const hf = await loadHfTokenizer(ASSETS_DIR);
  const ours = new ByteTokenizer();
  for (const text of ['plain', 'héllo ✓ 日本', '<|im_start|>user\nhi<|im_end|>\n', '']) {
    assert.deepEqual(hf.encode(text), ours.encode(text), text);
    assert.equal(hf.decode(hf.encode(text)), text);
  }
  assert.equal(hf.vocabSize, ours.vocabSize);
  assert.deepEqual(hf.specialTokens, ours.specialTokens);
  assert.equal(
    hf.eosTokenId,
    ours.specialTokens['<|im_end|>'],
    'tokenizer_config.json names <|im_end|> as eos',
  );
});

test('a directory without tokenizer files says which file it could not read', async () => {
  await assert.rejects(
    loadHfTokenizer('/nonexistent-model-dir'),
    /nonexistent-model-dir\/tokenizer\.json: cannot read it/,
  );
});
