import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const root = new URL('../../../', import.meta.url).pathname;
const canDrop = process.getuid?.() === 0;

describe('local provider without root', {
  skip: canDrop ? false : 'needs root to run a process as nobody',
}, () => {
  it('refuses to start and says what it needs instead of weakening isolation', async () => {
    const home = await mkdtemp(join(tmpdir(), 'sg-nobody-'));
    try {
      const out = await new Promise<string>((resolve, reject) =>
        execFile(
          process.execPath,
          ['--import', 'tsx', 'src/sandbox/local/testing/create-provider.ts', home],
          { cwd: root, uid: 65534, gid: 65534, env: { PATH: process.env.PATH, HOME: home }, timeout: 60_000 },
          (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
        ),
      );
      assert.match(out, /^SandboxError: the local provider needs root/);
      assert.match(out, /--provider docker/);
      assert.match(out, /user namespaces, a delegated writable cgroup and fuse-overlayfs/);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
