import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildProbe, PROBE_REFUSED, PROBE_WORKS, parseProbe } from '../local/testing/seccomp-probe.ts';
import { dockerTestEnvironment } from './docker-test-support.ts';
import { createDockerProvider, type DockerProvider, type DockerSandbox } from './index.ts';

const environment = await dockerTestEnvironment();

/**
 * Attacks that moby's default profile refuses only since after Docker 20.10 (Debian 12's engine):
 * io_uring (2023) and the AF_VSOCK and AF_ALG sockets (moby/profiles v0.2). The local filter follows
 * the newer profile (helper/seccomp.c).
 */
const NEWER_IN_PROFILE = ['io_uring_setup', 'socket_vsock', 'socket_alg'];

describe("docker sandbox under the engine's seccomp profile, attacked from inside", {
  skip: environment.skip,
  timeout: 300_000,
}, () => {
  let provider: DockerProvider;
  let sandbox: DockerSandbox;
  let dir: string;
  let results: Record<string, string>;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sg-seccomp-docker-'));
    const probe = await readFile(await buildProbe(dir));
    provider = await createDockerProvider();
    sandbox = await provider.create({ image: environment.image });
    await sandbox.writeFile('/tmp/seccomp-probe', probe, { mode: 0o755 });
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
    it(`${attack}: refused${NEWER_IN_PROFILE.includes(attack) ? ' (by engines newer than 20.10)' : ''}`, (t) => {
      // The real engine's answer is the one the local filter's tests expect (same errno), so the local
      // filter refuses at least what Docker refuses.
      if (results[attack] === errno) return;
      if (NEWER_IN_PROFILE.includes(attack))
        return t.skip(`this engine's profile allows it (${results[attack]})`);
      assert.equal(results[attack], errno);
    });

  it('fork, threads, inet and unix sockets work', () => {
    assert.deepEqual(
      PROBE_WORKS.filter((k) => results[k] !== 'ok'),
      [],
    );
  });
});
