import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Sandbox } from '../types.ts';
import { createLocal } from './index.ts';
import type { LocalProvider } from './local-provider.ts';
import { localTestSkipReason } from './test-support.ts';
import { buildProbe, PROBE_WORKS, parseProbe } from './testing/seccomp-probe.ts';

/** Normal work in a local sandbox under its seccomp filter (the attacks: seccomp.local.test.ts). */
const skip = await localTestSkipReason();

describe('normal work under the seccomp filter', { skip: skip ?? false, timeout: 300_000 }, () => {
  let provider: LocalProvider;
  let sandbox: Sandbox;
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sg-seccomp-compat-'));
    provider = await createLocal();
    sandbox = await provider.create({ image: 'sandgym/base' });
    await sandbox.writeFile('/tmp/seccomp-probe', await readFile(await buildProbe(dir)), { mode: 0o755 });
  });
  after(async () => {
    await sandbox?.close();
    await provider?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('fork, threads (clone3 gets ENOSYS, libc falls back to clone), inet and unix sockets', async () => {
    const r = await sandbox.exec(['/tmp/seccomp-probe']);
    assert.equal(r.exitCode, 0, r.stderr);
    const results = parseProbe(r.stdout);
    assert.deepEqual(
      PROBE_WORKS.filter((k) => results[k] !== 'ok').map((k) => `${k}: ${results[k]}`),
      [],
    );
  });

  it('python threads and subprocesses, pytest, git', async () => {
    const script = `set -e
cd /tmp && mkdir work && cd work
python3 -c 'import threading, subprocess, concurrent.futures as f
with f.ThreadPoolExecutor(4) as ex: assert sum(ex.map(abs, range(-50, 50))) == 2500
assert subprocess.run(["true"]).returncode == 0'
printf 'def test_ok():\\n    assert 1 + 1 == 2\\n' > test_a.py
python3 -m pytest -q -p no:cacheprovider test_a.py
git init -q && git -c user.name=a -c user.email=a@b commit -q --allow-empty -m x && git log --oneline | wc -l`;
    const r = await sandbox.exec(['/bin/sh', '-c', script]);
    assert.equal(r.exitCode, 0, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /1 passed/);
    assert.match(r.stdout, /^1$/m);
  });
});
