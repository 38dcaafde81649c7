import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildProbe, PROBE_REFUSED, PROBE_WORKS, parseProbe } from '../local/testing/seccomp-probe.ts';
import { dockerTestEnvironment } from './docker-test-support.ts';
import { createDockerProvider, type DockerProvider, type DockerSandbox } from './index.ts';

const environment = await dockerTestEnvironment();

describe('docker sandbox under its seccomp profile (the current moby default), attacked from inside', {
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
    it(`${attack}: refused`, () => {
      // The errno the local filter's tests expect: docker sandboxes refuse what local ones refuse,
      // io_uring and AF_VSOCK/AF_ALG included, which Debian's Docker 20.10 profile allows.
      assert.equal(results[attack], errno);
    });

  it('no privilege gained through exec: no_new_privs is set (a setuid binary gives nothing)', async () => {
    const r = await sandbox.exec(['grep', '^NoNewPrivs:', '/proc/self/status']);
    assert.match(r.stdout, /NoNewPrivs:\s+1/);
  });

  it('fork, threads, inet and unix sockets work', () => {
    assert.deepEqual(
      PROBE_WORKS.filter((k) => results[k] !== 'ok'),
      [],
    );
  });
});
