import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CLI, microData, smallMainArgs } from './train-support.ts';

const skip = process.getuid?.() === 0 ? false : 'the local provider needs root';

function run(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => {
    stdout += b.toString();
  });
  child.stderr.on('data', (b: Buffer) => {
    stderr += b.toString();
  });
  const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, exit, out: () => stdout, err: () => stderr };
}

describe('sandgym main with trainer.engine=tinker against sandgym engine serve', {
  skip,
  timeout: 600_000,
}, () => {
  it('runs SFT and RL steps over the Tinker API and writes the curve', async () => {
    const weights = await mkdtemp(join(tmpdir(), 'sg-engine-weights-'));
    const server = run([CLI, 'engine', 'serve', '--port', '0', '--model', 'tiny', '--weights-dir', weights]);
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setInterval(() => {
          const m = /TINKER_BASE_URL=(\S+)/.exec(server.out());
          if (m) {
            clearInterval(timer);
            resolve(m[1]!);
          }
        }, 50);
        void server.exit.then((code) => {
          clearInterval(timer);
          reject(new Error(`engine serve exited (${code}): ${server.err()}`));
        });
      });
      const runDir = await mkdtemp(join(tmpdir(), 'sg-train-tinker-'));
      const main = run(
        smallMainArgs(runDir, await microData(4, 2), [
          'trainer.engine=tinker',
          'trainer.total_training_steps=2',
          'trainer.save_freq=2',
          'trainer.test_freq=0',
        ]),
        { ...process.env, TINKER_BASE_URL: url },
      );
      assert.equal(await main.exit, 0, main.err());
      assert.match(main.err(), /rl step 2\/2: reward/);
      const curve = JSON.parse(readFileSync(join(runDir, 'curve.json'), 'utf8')) as { phase: string }[];
      assert.deepEqual(
        curve.map((c) => c.phase),
        ['init', 'sft', 'rl'],
      );
      const rl = readFileSync(join(runDir, 'metrics.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, number>)
        .filter((m) => 'actor/loss' in m);
      assert.equal(rl.length, 2);
      assert.ok(rl.every((m) => Number.isFinite(m['actor/loss']) && m['perf/tokens_per_s']! > 0));
      // The checkpoint is the server's: a tinker:// path, not weights in the run directory.
      const latest = readFileSync(join(runDir, 'checkpoints', 'latest'), 'utf8').trim();
      assert.equal(latest, 'rl-000002');
      const pointer = JSON.parse(
        readFileSync(join(runDir, 'checkpoints', latest, 'engine', 'tinker-checkpoint.json'), 'utf8'),
      ) as { tinker_path: string; base_url: string };
      assert.match(pointer.tinker_path, /^tinker:\/\/.+\/weights\//);
      assert.equal(pointer.base_url, url);
    } finally {
      server.child.kill('SIGTERM');
      await server.exit;
    }
  });
});
