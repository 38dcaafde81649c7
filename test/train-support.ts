import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..');
export const CLI = join(ROOT, 'bin', 'sandgym.js');

/** A directory with the first `train` micro training tasks and the first `val` held-out ones. */
export async function microData(train: number, val: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sg-train-data-'));
  const rows = (f: string, n: number) =>
    readFileSync(join(ROOT, 'datasets', 'micro', f), 'utf8')
      .split('\n')
      .slice(0, n)
      .join('\n');
  writeFileSync(join(dir, 'train.jsonl'), `${rows('train.jsonl', train)}\n`);
  writeFileSync(join(dir, 'val.jsonl'), `${rows('heldout.jsonl', val)}\n`);
  return dir;
}

/** `sandgym main` made small: the data above, 2 tasks × 2 samples a step, a 1-layer model, SFT of 1 epoch. */
export function smallMainArgs(runDir: string, data: string, overrides: string[]): string[] {
  return [
    CLI,
    'main',
    '-o',
    runDir,
    `data.train_files=[${join(data, 'train.jsonl')}]`,
    `data.val_files=[${join(data, 'val.jsonl')}]`,
    'data.train_batch_size=2',
    'rollout.n=2',
    'engine.reference.n_layers=1',
    'engine.reference.d_model=32',
    'engine.reference.n_heads=2',
    'engine.reference.bpe_merges=64',
    'sft.epochs=1',
    'sft.batch_size=2',
    ...overrides,
  ];
}
