import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { arch, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Sandbox } from '../types.ts';
import { createLocal } from './index.ts';
import type { LocalProvider } from './local-provider.ts';
import { localTestSkipReason } from './test-support.ts';
import { buildProbe, kernelTakesInt80, PROBE_REFUSED, parseProbe } from './testing/seccomp-probe.ts';

/**
 * The seccomp filter attacked from inside a default local sandbox (issue 12): one test per attack, so
 * bench:sandbox counts them. That normal work still runs: seccomp-compat.local.test.ts.
 */
const skip = await localTestSkipReason();

/** The `Seccomp:` (2 = filter) and `NoNewPrivs:` lines of a /proc/PID/status. */
const seccompStatus = (status: string) => status.split('\n').filter((l) => /^(Seccomp|NoNewPrivs):/.test(l));

describe('seccomp, attacked from inside a local sandbox', { skip: skip ?? false, timeout: 300_000 }, () => {
  let provider: LocalProvider;
  let sandbox: Sandbox;
  let dir: string;
  let probe: string;
  let results: Record<string, string>;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sg-seccomp-local-'));
    probe = await buildProbe(dir);
    provider = await createLocal();
    sandbox = await provider.create({ image: 'sandgym/base' });
    await sandbox.writeFile('/tmp/seccomp-probe', await readFile(probe), { mode: 0o755 });
    const r = await sandbox.exec(['/tmp/seccomp-probe']);
    assert.equal(r.exitCode, 0, r.stderr);
    results = parseProbe(r.stdout);
  });
  after(async () => {
    await sandbox?.close();
    await provider?.close();
    await rm(dir, { recursive: true, force: true });
  });

  for (const [attack, errno] of Object.entries(PROBE_REFUSED))
    it(`${attack}: refused with ${errno}`, () => {
      assert.equal(results[attack], errno);
    });

  it('every command and pid 1 run under the filter, with no_new_privs', async () => {
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
    it(`a ${entry === 'int80' ? '32-bit (int 0x80)' : 'x32'} system call kills the process`, {
      skip: arch() === 'x64' ? false : 'x86_64 only',
    }, async (t) => {
      if (entry === 'int80' && !(await kernelTakesInt80(probe)))
        return t.skip('the kernel takes no 32-bit calls');
      const r = await sandbox.exec(['/tmp/seccomp-probe', entry]);
      assert.equal(r.exitCode, 128 + 31, `SIGSYS: ${r.stdout}${r.stderr}`);
    });
});
