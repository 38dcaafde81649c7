import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadChatTemplate } from '../../../llm/index.ts';
import { ByteTokenizer } from '../byte-tokenizer.ts';
import { BpeTokenizer, FIRST_MERGE_ID } from './bpe-tokenizer.ts';
import { readBpeTokenizerDir, writeBpeTokenizerDir } from './tokenizer-dir.ts';
import { trainBpe } from './train-bpe.ts';

const call = (path: string, old: string, neu: string) =>
  `<|im_start|>assistant\n<function=file_editor>\n<parameter=command>str_replace</parameter>\n<parameter=path>${path}</parameter>\n<parameter=old_str>    return ${old}\n</parameter>\n<parameter=new_str>    return ${neu}\n</parameter>\n</function><|im_end|>\n`;
const corpus = [
  call('/testbed/calc.py', 'a - b', 'a + b'),
  call('/testbed/ops.py', 'n * 2', 'n * n'),
  call('/testbed/helpers.py', 'n', '-n'),
  call('/testbed/arith.py', 'a if a < b else b', 'a if a > b else b'),
];

describe('byte-level BPE', () => {
  it('learns merges deterministically and compresses tool-call markup', () => {
    const merges = trainBpe(corpus, 200);
    assert.deepEqual(trainBpe(corpus, 200), merges);
    const bpe = new BpeTokenizer(merges);
    const text = call('/testbed/mathutil.py', 'a * b', 'a ** b');
    const bytes = new ByteTokenizer().encode(text).length;
    const tokens = bpe.encode(text).length;
    assert.ok(tokens * 3 < bytes, `${tokens} tokens for ${bytes} bytes`);
  });

  it('round-trips any text, specials and non-ASCII included', () => {
    const bpe = new BpeTokenizer(trainBpe(corpus, 100));
    for (const t of [
      '',
      'héllo ✓ <|im_end|> \u0000 tab\t',
      corpus[0]!,
      '<|endoftext|><|pad|>x',
      '\u{1F600} emoji',
    ]) {
      assert.equal(bpe.decode(bpe.encode(t)), t);
    }
    assert.deepEqual(bpe.encode('<|im_end|>'), [258]);
  });

  it('gives exactly the ids @huggingface/tokenizers gives for its tokenizer.json', async () => {
    const merges = trainBpe(corpus, 150);
    const dir = mkdtempSync(join(tmpdir(), 'sg-bpe-'));
    writeBpeTokenizerDir(dir, merges);
    const template = await loadChatTemplate(dir);
    const ours = readBpeTokenizerDir(dir);
    assert.deepEqual(ours.merges, merges);
    for (const t of [
      ...corpus,
      call('/testbed/new.py', 'x // 3', 'x // 2'),
      'plain text, not markup: 12345 ¿?',
    ]) {
      assert.deepEqual(template.encode(t), ours.encode(t), t);
      assert.equal(template.decode(ours.encode(t), { keepSpecialTokens: true }), t);
    }
    assert.ok(JSON.parse(readFileSync(join(dir, 'tokenizer_config.json'), 'utf8')).chat_template);
  });

  it('refuses merges that use tokens not made yet', () => {
    assert.throws(() => new BpeTokenizer([[FIRST_MERGE_ID, 97]]), /does not exist yet/);
  });
});
