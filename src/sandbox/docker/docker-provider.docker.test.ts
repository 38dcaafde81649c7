import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import Docker from 'dockerode';
import { isConfigError, isSandboxError } from '../../errors.ts';
import { currentRunId } from '../owner.ts';
import { LABELS } from '../types.ts';
import { dockerTestEnvironment } from './docker-test-support.ts';
import { createDockerProvider, type DockerProvider, type DockerSandbox } from './index.ts';
import { IMAGE_KIND_LABEL } from './sandbox-labels.ts';

const environment = await dockerTestEnvironment();
const MiB = 1024 * 1024;
// pid 999999999 exceeds pid_max, so this run of this host and boot is certainly dead.
const deadRun = currentRunId().replace(/\.\d+\.\d+$/, '.999999999.1');

describe('docker provider', { skip: environment.skip, timeout: 30 * 60_000 }, () => {
  const docker = new Docker();
  let provider: DockerProvider;
  let sandbox: DockerSandbox;

  before(async () => {
    provider = await createDockerProvider();
    sandbox = await provider.create({
      image: environment.image,
      limits: { memoryBytes: 256 * MiB, pids: 128, cpus: 0.5, diskBytes: 100 * MiB },
      labels: { team: 'rl' },
      ttlMs: 600_000,
    });
  });
  after(() => provider.close());

  it('makes the container the contract describes: labels, no network, limits, disk quota, sandgym init', async () => {
    const info = await sandbox.container.inspect();
    assert.equal(info.Config.Labels[LABELS.run], currentRunId());
    assert.equal(info.Config.Labels[LABELS.ttlMs], '600000');
    assert.equal(info.Config.Labels.team, 'rl');
    assert.equal(info.HostConfig.NetworkMode, 'none');
    assert.equal(info.HostConfig.Memory, 256 * MiB);
    assert.equal(info.HostConfig.MemorySwap, 256 * MiB);
    assert.equal(info.HostConfig.PidsLimit, 128);
    assert.equal(info.HostConfig.NanoCpus, 500_000_000);
    if (provider.diskLimitEnforced) {
      const imageSize = (await docker.getImage(environment.image).inspect()).Size;
      assert.deepEqual(info.HostConfig.StorageOpt, { size: String(imageSize + 100 * MiB) });
    } else {
      assert.deepEqual(info.HostConfig.Ulimits, [{ Name: 'fsize', Soft: 100 * MiB, Hard: 100 * MiB }]);
    }
    const init = await sandbox.exec('tr "\\0" " " < /proc/1/cmdline');
    assert.match(init.stdout, /^\/bin\/sh -c .* sandgym-init 600 $/s);
  });

  it('passes stdin from a stream, reports a missing cwd or program as data', async () => {
    const r = await sandbox.exec('wc -c', { stdin: Readable.from([Buffer.alloc(100_000, 1), 'end']) });
    assert.equal(r.stdout.trim(), '100003');
    const noCwd = await sandbox.exec('pwd', { cwd: '/no/such/dir' });
    assert.notEqual(noCwd.exitCode, 0);
    assert.match(noCwd.stdout + noCwd.stderr, /no such file or directory/);
    assert.notEqual((await sandbox.exec(['no-such-program-xyz'])).exitCode, 0);
  });

  it('kills a spawned process tree with the signal asked for', async () => {
    const p = await sandbox.spawn('trap "echo bye; exit 3" TERM; echo ready; while :; do sleep 0.1; done');
    let out = '';
    p.stdout.on('data', (b: Buffer) => {
      out += b.toString();
    });
    while (!out.includes('ready')) await sleep(50);
    p.kill('SIGTERM');
    assert.deepEqual(await p.exited, { exitCode: 3, signal: null });
    assert.match(out, /bye/);
  });

  it('reads through symlinks inside the sandbox, refuses directories and relative paths', async () => {
    await sandbox.writeFile('/tmp/real.txt', 'real\n');
    await sandbox.exec('ln -sf real.txt /tmp/rel-link && ln -sf /tmp/rel-link /tmp/abs-link');
    assert.equal((await sandbox.readFile('/tmp/abs-link')).toString(), 'real\n');
    await assert.rejects(
      sandbox.readFile('/tmp'),
      (e: unknown) => isSandboxError(e) && /is a directory/.test(e.message),
    );
    await assert.rejects(
      sandbox.writeFile('tmp/x', 'x'),
      (e: unknown) => isConfigError(e) && /absolute/.test(e.message),
    );
  });

  it('lets execs wait while a fork pauses the container, and removes the fork image after the forks', async () => {
    const [forks, busy] = await Promise.all([sandbox.fork(2), sandbox.exec('sleep 1; echo done')]);
    assert.equal(busy.stdout, 'done\n');
    const forkImageId = (await forks[0]!.container.inspect()).Image;
    const images = await docker.listImages({ filters: { label: [`${LABELS.run}=${currentRunId()}`] } });
    const forkImage = images.find((i) => i.Labels?.[IMAGE_KIND_LABEL] === 'fork' && i.Id === forkImageId);
    assert.ok(forkImage, 'a labelled fork image backs the forks');
    await Promise.all(forks.map((f) => f.close()));
    // The image goes once both forks' containers are removed (in the background).
    for (let i = 0; i < 600 && (await imageExists(docker, forkImage.Id)); i++) await sleep(500);
    assert.equal(await imageExists(docker, forkImage.Id), false, 'the fork image was removed');
  });

  it('keeps snapshot images out of gc and strips their ownership', async () => {
    const image = `sandgym-test/docker-snapshot:${process.pid}`;
    try {
      await sandbox.snapshot(image);
      const labels = (await docker.getImage(image).inspect()).Config.Labels;
      assert.equal(labels[IMAGE_KIND_LABEL], 'snapshot');
      assert.equal(labels[LABELS.run], '');
      await provider.gc();
      assert.equal(await provider.hasImage(image), true);
    } finally {
      await docker
        .getImage(image)
        .remove()
        .catch(() => {});
    }
  });

  it('says a sandbox died when its container is killed from outside, and still closes', async () => {
    const victim = await provider.create({ image: environment.image });
    await victim.container.kill();
    await assert.rejects(
      victim.exec('true'),
      (e: unknown) => isSandboxError(e) && e.isRetryable && /died: its container stopped/.test(e.message),
    );
    await victim.close();
    await assert.rejects(victim.exec('true'), /is closed/);
  });

  it('ends a sandbox at its TTL even without gc', async () => {
    const shortLived = await provider.create({ image: environment.image, ttlMs: 2000 });
    await sleep(4000);
    await assert.rejects(shortLived.exec('true'), /died: its TTL of 2 s ran out/);
    await shortLived.close();
  });

  it('tries to pull an absent image and says how to get it when that fails', async () => {
    await assert.rejects(
      provider.create({ image: 'sandgym/no-such-image-xyz' }),
      (e: unknown) =>
        isSandboxError(e) &&
        /image "sandgym\/no-such-image-xyz" is not available locally and pulling it failed/.test(e.message) &&
        /sandgym images build no-such-image-xyz/.test(e.message),
    );
  });

  it('gc removes the sandboxes of a dead run and keeps those of a live one', async () => {
    const orphanMaker = await createDockerProvider({ runId: deadRun });
    const orphan = await orphanMaker.create({ image: environment.image });
    const report = await provider.gc();
    assert.ok(report.removed.includes(orphan.id), 'the dead run’s sandbox is removed');
    assert.ok(!report.removed.includes(sandbox.id), 'our own live sandbox is kept');
    assert.equal((await sandbox.exec('echo alive')).stdout, 'alive\n');
    await orphanMaker.close();
  });
});

async function imageExists(docker: Docker, id: string): Promise<boolean> {
  return docker
    .getImage(id)
    .inspect()
    .then(
      () => true,
      () => false,
    );
}
