import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { isEngineInputError } from '../errors.ts';
import { FIRST_MERGE_ID } from './bpe/bpe-tokenizer.ts';
import { writeBpeTokenizerDir } from './bpe/tokenizer-dir.ts';
import { trainBpe } from './bpe/train-bpe.ts';
import { ReferenceEngine } from './reference-engine.ts';
import { SMALL_BYTE_MODEL, sequenceDatum } from './test-support.ts';

async function engine(seed = 1): Promise<ReferenceEngine> {
  return ReferenceEngine.create({ model: SMALL_BYTE_MODEL, seed, threads: 1 });
}

function sftBatch(e: ReferenceEngine) {
  const tok = e.getTokenizer();
  return ['one: 1<|im_end|>', 'two: 22<|im_end|>', 'héllo wörld ✓<|im_end|>'].map((s) =>
    sequenceDatum(tok.encode(s)),
  );
}

async function train(e: ReferenceEngine, steps: number): Promise<void> {
  for (let i = 0; i < steps; i++) {
    await e.forwardBackward(sftBatch(e), 'cross_entropy');
    await e.optimStep({ learning_rate: 1e-2, weight_decay: 0.01, grad_clip_norm: 1 });
  }
}

test('the same seed gives bit-identical weights after N steps and the same samples; another seed does not', async () => {
  const [a, b, c] = [await engine(3), await engine(3), await engine(4)];
  for (const e of [a, b, c]) await train(e, 5);
  assert.deepEqual(a.parameterVector(), b.parameterVector());
  assert.notDeepEqual(a.parameterVector(), c.parameterVector());
  const prompt = a.getTokenizer().encode('one: ');
  const sa = await a.sample(prompt, { max_tokens: 12 }, 3);
  const sb = await b.sample(prompt, { max_tokens: 12 }, 3);
  assert.deepEqual(sa, sb);
});

test('sampling logprobs at temperature 1 equal forward logprobs of the same tokens', async () => {
  const e = await engine(2);
  await train(e, 3);
  const prompt = e.getTokenizer().encode('two: ');
  const { sequences } = await e.sample(prompt, { max_tokens: 20, temperature: 1, seed: 9 }, 4);
  for (const s of sequences) {
    const seq = [...prompt, ...s.tokens];
    const out = await e.forward([sequenceDatum(seq)], 'cross_entropy');
    const forward = out.loss_fn_outputs[0]!.logprobs.data.slice(prompt.length - 1);
    assert.equal(forward.length, s.logprobs.length);
    s.logprobs.forEach((lp, i) => {
      assert.ok(Math.abs(lp - forward[i]!) < 1e-4, `token ${i}: ${lp} vs ${forward[i]}`);
    });
  }
});

test('with a BPE tokenizer, stop strings are matched in its text, on worker threads too', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'sg-bpe-engine-'));
  const texts = ['one: 1<|im_end|>', 'two: 22<|im_end|>', 'héllo wörld ✓<|im_end|>'];
  const merges = trainBpe(texts.concat(texts), 20);
  writeBpeTokenizerDir(dir, merges);
  const e = await ReferenceEngine.create({
    model: { ...SMALL_BYTE_MODEL, vocab_size: FIRST_MERGE_ID + merges.length },
    seed: 5,
    threads: 2,
    tokenizerDir: dir,
  });
  const tok = e.getTokenizer();
  assert.ok(tok.encode('two: 22<|im_end|>').length < 8, 'the merges shorten the text');
  for (let i = 0; i < 60; i++) {
    await e.forwardBackward(
      texts.map((t) => sequenceDatum(tok.encode(t))),
      'cross_entropy',
    );
    await e.optimStep({ learning_rate: 1e-2, weight_decay: 0.01, grad_clip_norm: 1 });
  }
  const out = await e.sample(tok.encode('two: '), { max_tokens: 20, temperature: 0, stop: ['22'] }, 1);
  assert.equal(out.sequences[0]!.stop_reason, 'stop');
  assert.ok(tok.decode(out.sequences[0]!.tokens).endsWith('22'));
  await e.close();
});

test('truncated sampling returns logprobs of the truncated distribution; greedy returns 0', async () => {
  const e = await engine(2);
  const prompt = e.getTokenizer().encode('x');
  const { sequences } = await e.sample(
    prompt,
    { max_tokens: 30, temperature: 0.7, top_k: 5, top_p: 0.9, seed: 1 },
    2,
  );
  // The exact values are checked against hand-computed distributions in sampling.test.ts.
  for (const s of sequences) for (const lp of s.logprobs) assert.ok(lp <= 0 && Number.isFinite(lp));
  const greedy = await e.sample(prompt, { max_tokens: 5, temperature: 0 }, 2);
  assert.deepEqual(greedy.sequences[0], greedy.sequences[1]);
  assert.deepEqual(greedy.sequences[0]!.logprobs, [0, 0, 0, 0, 0]);
});

test('sampling stops on stop tokens and strings (kept in the output) and reports length otherwise', async () => {
  const e = await engine(5);
  await train(e, 60);
  const tok = e.getTokenizer();
  const prompt = tok.encode('two: ');
  const byString = await e.sample(prompt, { max_tokens: 20, temperature: 0, stop: ['<|im_end|>'] }, 1);
  assert.equal(tok.decode(byString.sequences[0]!.tokens), '22<|im_end|>');
  assert.equal(byString.sequences[0]!.stop_reason, 'stop');
  const byToken = await e.sample(prompt, { max_tokens: 20, temperature: 0, stop: [tok.encode('2')[0]!] }, 1);
  assert.deepEqual(byToken.sequences[0]!.tokens, tok.encode('2'));
  const short = await e.sample(prompt, { max_tokens: 1, temperature: 0, stop: ['<|im_end|>'] }, 1);
  assert.equal(short.sequences[0]!.stop_reason, 'length');
  assert.equal(short.sequences[0]!.tokens.length, 1);
});

test('a checkpoint round trip restores weights, optimizer and generator: the next step and sample are identical', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'sandgym-ckpt-'));
  try {
    const a = await engine(6);
    await train(a, 4);
    await a.saveState(join(dir, 'step4'));
    const b = await engine(99);
    await b.loadState(join(dir, 'step4'), { optimizer: true });
    assert.deepEqual(b.parameterVector(), a.parameterVector());
    await train(a, 1);
    await train(b, 1);
    assert.deepEqual(b.parameterVector(), a.parameterVector());
    const prompt = a.getTokenizer().encode('one');
    assert.deepEqual(
      await b.sample(prompt, { max_tokens: 8 }, 2),
      await a.sample(prompt, { max_tokens: 8 }, 2),
    );
    // Saving over an existing checkpoint replaces it whole and leaves no temporary directories.
    await a.saveState(join(dir, 'step4'));
    const c = await engine(98);
    await c.loadState(join(dir, 'step4'), { optimizer: true });
    assert.deepEqual(c.parameterVector(), a.parameterVector());
    assert.deepEqual(await readdir(dir), ['step4']);
    assert.deepEqual((await readdir(join(dir, 'step4'))).sort(), [
      'adam_m.f32',
      'adam_v.f32',
      'manifest.json',
      'params.f32',
    ]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('sampler weights hold no optimizer state and load only without it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'sandgym-ckpt-'));
  try {
    const a = await ReferenceEngine.create({ model: SMALL_BYTE_MODEL, seed: 1, weightsDir: dir, threads: 1 });
    await train(a, 2);
    const path = await a.saveWeightsForSampler('w-000002');
    assert.equal(path, join(dir, 'w-000002'));
    const b = await engine(2);
    await assert.rejects(b.loadState(path, { optimizer: true }), /holds weights only/);
    await b.loadState(path, { optimizer: false });
    assert.deepEqual(b.parameterVector(), a.parameterVector());
    const other = await ReferenceEngine.create({ model: { ...SMALL_BYTE_MODEL, d_model: 16 }, threads: 1 });
    await assert.rejects(other.loadState(path, { optimizer: false }), /does not match/);
    await assert.rejects(b.loadState(join(dir, 'missing'), { optimizer: false }), /no manifest.json/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('bad input is refused before any gradient changes, with a message naming the datum', async () => {
  const e = await engine(1);
  const good = sftBatch(e)[0]!;
  const misaligned = sequenceDatum([1, 2, 3]);
  misaligned.loss_fn_inputs.target_tokens.data.push(4);
  await assert.rejects(e.forwardBackward([good, misaligned], 'cross_entropy'), (err: Error) => {
    assert.ok(isEngineInputError(err));
    assert.match(err.message, /datum 1 target_tokens: has 3 values but model_input has 2 tokens/);
    return true;
  });
  assert.ok(e.gradientVector().every((g) => g === 0));
  await assert.rejects(
    e.forwardBackward([sequenceDatum([1, 999])], 'cross_entropy'),
    /outside the vocabulary/,
  );
  await assert.rejects(e.forwardBackward([good], 'ppo'), /needs loss_fn_inputs.logprobs and advantages/);
  await assert.rejects(e.forwardBackward([good], 'dro' as never), /unknown loss_fn "dro"/);
  await assert.rejects(e.sample([1], { max_tokens: 2, top_p: 0 }, 1), /top_p must be in \(0, 1\]/);
  await assert.rejects(e.optimStep({ beta2: 1 }), /beta2 must be in \[0, 1\)/);
  await assert.rejects(ReferenceEngine.create({ model: 'huge' as never }), /unknown reference model "huge"/);
  const small = await ReferenceEngine.create({ model: { ...SMALL_BYTE_MODEL, vocab_size: 20 }, threads: 1 });
  assert.throws(() => small.getTokenizer(), /vocab_size is 20 but the tokenizer .* has 260 tokens/);
});

test('optimStep reports the gradient norm, clears gradients, and zero learning rate leaves weights alone', async () => {
  const e = await engine(1);
  await e.forwardBackward(sftBatch(e), 'cross_entropy');
  const before = e.parameterVector();
  const g = e.gradientVector();
  const norm = Math.sqrt(g.reduce((s, x) => s + x * x, 0));
  const { metrics } = await e.optimStep({ learning_rate: 0 });
  assert.ok(Math.abs(metrics.grad_norm! - norm) < 1e-6 * norm);
  assert.equal(metrics.step, 1);
  assert.deepEqual(e.parameterVector(), before);
  assert.ok(e.gradientVector().every((x) => x === 0));
});

test('two worker threads give bit-identical weights, outputs and samples to one thread', async () => {
  const one = await ReferenceEngine.create({ model: SMALL_BYTE_MODEL, seed: 8, threads: 1 });
  const two = await ReferenceEngine.create({ model: SMALL_BYTE_MODEL, seed: 8, threads: 2 });
  try {
    for (const e of [one, two]) await train(e, 3);
    assert.deepEqual(two.parameterVector(), one.parameterVector());
    const batch = sftBatch(one);
    assert.deepEqual(await two.forward(batch, 'cross_entropy'), await one.forward(batch, 'cross_entropy'));
    const prompt = one.getTokenizer().encode('one: ');
    assert.deepEqual(
      await two.sample(prompt, { max_tokens: 10 }, 5),
      await one.sample(prompt, { max_tokens: 10 }, 5),
    );
    await two.close();
    await assert.rejects(two.forward(batch, 'cross_entropy'), /closed/);
  } finally {
    await two.close();
  }
});
