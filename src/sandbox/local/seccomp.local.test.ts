import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { arch, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Sandbox } from '../types.ts';
import { createLocal } from './index.ts';
import type { LocalProvider } from './local-provider.ts';
import { localTestSkipReason } from './test-support.ts';
import { buildProbe, kernelTakesInt80, PROBE_EXPECTED, parseProbe } from './testing/seccomp-probe.ts';

const skip = await localTestSkipReason();

/** The `Seccomp:` (2 = filter) and `NoNewPrivs:` lines of a /proc/PID/status. */
const seccompStatus = (status: string) => status.split('\n').filter((l) => /^(Seccomp|NoNewPrivs):/.test(l));

describe('a local sandbox under its seccomp filter, attacked from inside', {
  skip: skip ?? false,
  timeout: 300_000,
}, () => {
  let provider: LocalProvider;
  let sandbox: Sandbox;
  let dir: string;
  let probe: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sg-seccomp-local-'));
    probe = await buildProbe(dir);
    provider = await createLocal();
    sandbox = await provider.create({ image: 'sandgym/base' });
    await sandbox.writeFile('/tmp/seccomp-probe', await readFile(probe), { mode: 0o755 });
  });
  after(async () => {
    await sandbox?.close();
    await provider?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('keyctl, unshare, mount, userfaultfd, bpf, perf events, io_uring, kexec, modules, vsock: all refused', async () => {
    const r = await sandbox.exec(['/tmp/seccomp-probe']);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.deepEqual(parseProbe(r.stdout), PROBE_EXPECTED);
  });

  it('filters every command and pid 1, with no_new_privs', async () => {
    const r = await sandbox.exec('cat /proc/self/status /proc/1/status');
    assert.equal(r.exitCode, 0, r.stderr);
    assert.deepEqual(seccompStatus(r.stdout), [
      'NoNewPrivs:\t1',
      'Seccomp:\t2',
      'NoNewPrivs:\t1',
      'Seccomp:\t2',
    ]);
  });

  for (const entry of ['int80', 'x32'])
    it(`kills a ${entry === 'int80' ? '32-bit (int 0x80)' : 'x32'} system call`, {
      skip: arch() === 'x64' ? false : 'x86_64 only',
    }, async (t) => {
      if (entry === 'int80' && !(await kernelTakesInt80(probe)))
        return t.skip('the kernel takes no 32-bit calls');
      const r = await sandbox.exec(['/tmp/seccomp-probe', entry]);
      assert.equal(r.exitCode, 128 + 31, `SIGSYS: ${r.stdout}${r.stderr}`);
    });

  it('still runs normal work: python threads and subprocesses, pytest, git', async () => {
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
