import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { sequenceDatum } from '../reference/test-support.ts';
import { FAST_RETRY } from './test-support.ts';
import { isTinkerApiError } from './tinker-api-error.ts';
import { TinkerEngine } from './tinker-engine.ts';

const CLI = fileURLToPath(new URL('../../../bin/sandgym.js', import.meta.url));

/** `sandgym engine serve` as a process of its own, and the URL it announces. */
async function serve(weightsDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [CLI, 'engine', 'serve', '--port', '0', '--threads', '2', '--weights-dir', weightsDir],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  for await (const chunk of child.stdout!) {
    out += chunk;
    const url = /at (http:\/\/\S+) /.exec(out)?.[1];
    if (url) return { child, url };
  }
  throw new Error(`engine serve exited without announcing its URL: ${out}`);
}

test('a server killed mid-request gives a clear, retryable error, and close still returns', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'sandgym-killed-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const { child, url } = await serve(dir);
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const warnings: string[] = [];
  const engine = await TinkerEngine.create({
    baseUrl: url,
    retry: FAST_RETRY,
    onWarning: (w) => warnings.push(w),
  });
  const long = Array.from({ length: 800 }, (_, i) => 32 + (i % 90));
  const pending = engine.forwardBackward([sequenceDatum(long), sequenceDatum(long)], 'cross_entropy');
  // Wherever the kill lands (the POST, the work, the long poll), the client must say the same thing.
  await sleep(300);
  child.kill('SIGKILL');
  await once(child, 'exit');
  await assert.rejects(pending, (e) => {
    assert.ok(isTinkerApiError(e), String(e));
    assert.equal(e.kind, 'network');
    assert.equal(e.isRetryable, true);
    assert.match(e.message, new RegExp(`cannot reach the Tinker API at ${url}: .*; is the server running`));
    return true;
  });
  await engine.close();
  assert.match(warnings.join('\n'), /could not unload model_/);
});
