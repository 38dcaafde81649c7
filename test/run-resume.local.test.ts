import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const skip = process.getuid?.() === 0 ? false : 'the local provider needs root';
const CLI = join(import.meta.dirname, '..', 'bin', 'sandgym.js');

function lines(path: string): string[] {
  return existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l.trim())
    : [];
}

describe('sandgym run: kill -9 halfway, then rerun', { skip, timeout: 600_000 }, () => {
  it('loses nothing finished and duplicates nothing', async () => {
    const out = mkdtempSync(join(tmpdir(), 'sg-run-'));
    const file = join(out, 'trajectories.jsonl');
    const args = [
      CLI,
      'run',
      '--policy',
      'oracle',
      '-d',
      'bundled:debug',
      '--samples',
      '2',
      '--n-parallel',
      '4',
      '-o',
      out,
    ];
    const child = spawn(process.execPath, args, { stdio: 'ignore' });
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        if (lines(file).length >= 6) {
          clearInterval(timer);
          child.kill('SIGKILL');
          resolve();
        }
      }, 50);
      child.on('exit', () => {
        clearInterval(timer);
        reject(new Error('the run ended before it could be killed'));
      });
    });
    await new Promise((r) => child.on('exit', r));
    const before = lines(file).length;
    assert.ok(before >= 6 && before < 30, `killed with ${before} trajectories written`);

    const rerun = spawnSync(process.execPath, args, { encoding: 'utf8' });
    assert.equal(rerun.status, 0, rerun.stderr);
    const keys = lines(file).map((l) => {
      const t = JSON.parse(l) as { taskId: string; sample: number; reward: number };
      assert.equal(t.reward, 1);
      return `${t.taskId}#${t.sample}`;
    });
    assert.equal(keys.length, 30);
    assert.equal(new Set(keys).size, 30, 'no trajectory twice');
    assert.match(rerun.stdout, /resolved\s+30\/30/);
    // The killed run's sandboxes were found by the rerun's start-up gc.
    const gc = spawnSync(process.execPath, [CLI, 'gc', '--provider', 'local'], { encoding: 'utf8' });
    assert.match(gc.stdout, /local: removed 0 sandbox/);
  });
});
