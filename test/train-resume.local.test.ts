import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { microData, smallMainArgs } from './train-support.ts';

const skip = process.getuid?.() === 0 ? false : 'the local provider needs root';
// With the KL penalty under the adaptive controller: its reference policy and β must survive the kill too.
const ARGS = [
  'trainer.total_training_steps=3',
  'trainer.save_freq=1',
  'trainer.test_freq=0',
  'algorithm.use_kl_in_reward=true',
  'algorithm.kl_ctrl.type=adaptive',
  'algorithm.kl_ctrl.kl_coef=0.05',
  'algorithm.kl_ctrl.horizon=10',
];

/** Every file of the final checkpoint: weights, optimizer moments, generator state. */
function finalState(dir: string): Map<string, Buffer> {
  const root = join(dir, 'checkpoints');
  const latest = readFileSync(join(root, 'latest'), 'utf8').trim();
  assert.equal(latest, 'rl-000003');
  const engine = join(root, latest, 'engine');
  return new Map(readdirSync(engine).map((f) => [f, readFileSync(join(engine, f))]));
}

describe('sandgym main: kill -9 during RL, then rerun', { skip, timeout: 600_000 }, () => {
  it('ends with the same weights, bit for bit, as a run never interrupted', async () => {
    const data = await microData(4, 2);

    const whole = await mkdtemp(join(tmpdir(), 'sg-train-whole-'));
    const once = spawnSync(process.execPath, smallMainArgs(whole, data, ARGS), { encoding: 'utf8' });
    assert.equal(once.status, 0, once.stderr);

    const killed = await mkdtemp(join(tmpdir(), 'sg-train-killed-'));
    const child = spawn(process.execPath, smallMainArgs(killed, data, ARGS), {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let log = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr!.on('data', (b: Buffer) => {
        log += b.toString();
        // Step 2's rollouts are under way: its episodes are half on disk, its update not done.
        if (log.includes('rl step 1/3')) setTimeout(() => child.kill('SIGKILL'), 300).unref();
      });
      child.on('exit', (code, signal) =>
        signal === 'SIGKILL' ? resolve() : reject(new Error(`the run ended (${code}) before it was killed`)),
      );
    });
    const rerun = spawnSync(process.execPath, smallMainArgs(killed, data, ARGS), { encoding: 'utf8' });
    assert.equal(rerun.status, 0, rerun.stderr);
    assert.match(rerun.stderr, /resumed from .*rl-00000[12]: phase rl, step [12]/);

    const betas = (dir: string) =>
      readFileSync(join(dir, 'metrics.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as Record<string, number>)['kl/coef'])
        .filter((b) => b !== undefined);
    assert.equal(betas(whole).length, 3);
    assert.notEqual(betas(whole)[2], 0.05, 'the adaptive controller moved β');
    assert.equal(betas(killed).at(-1), betas(whole).at(-1));

    const a = finalState(whole);
    const b = finalState(killed);
    assert.deepEqual([...b.keys()].sort(), [...a.keys()].sort());
    for (const [file, bytes] of a) assert.ok(bytes.equals(b.get(file)!), `${file} differs`);
  });
});
