import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import Docker from 'dockerode';
import { AgsKeyStore } from '../../server/ags/ags-keys.ts';
import { ToolStore } from '../../server/ags/tool-store.ts';
import { startTestServer } from '../../server/testing/test-server.ts';
import { AgsClient, syncTools } from '../ags/index.ts';
import { localTestSkipReason } from '../local/test-support.ts';
import { dockerTestEnvironment } from './docker-test-support.ts';
import { ensureInRegistry, parseRegistry, type RegistryPush, registryRef } from './push-image.ts';

/** Debian's docker-registry (the CNCF distribution registry), installed by scripts/setup.sh. */
const REGISTRY_BIN = '/usr/bin/docker-registry';
/**
 * User "sandgym", password below; made once with
 * python3 -c "import crypt; print('sandgym:'+crypt.crypt(PASSWORD, crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=16)))"
 */
const HTPASSWD = fileURLToPath(new URL('./fixtures/registry.htpasswd', import.meta.url));
const PASSWORD = 'sandgym-test-password';

/** Keys of the test's own control plane (sandgym serve's AGS API), issued to nobody else. */
const AGS_ID = 'AKIDsandgymPushTestKey000000000000000';
const AGS_SECRET = 'sandgymPushTestSecret0000000000000000';

const environment = await dockerTestEnvironment();
const skip =
  environment.skip ??
  (existsSync(REGISTRY_BIN) ? undefined : `no ${REGISTRY_BIN}; run "bash scripts/setup.sh"`) ??
  (await localTestSkipReason());

describe('registry refs', () => {
  it('places the image under the namespace, tag latest by default', () => {
    assert.equal(registryRef('sandgym/base', 'r:5000/ns'), 'r:5000/ns/sandgym/base:latest');
    assert.equal(registryRef('docker.io/library/x:1', 'r/ns'), 'r/ns/library/x:1');
    assert.equal(parseRegistry('ccr.ccs.tencentyun.com/team/'), 'ccr.ccs.tencentyun.com/team');
    assert.throws(() => parseRegistry('no-namespace:5000'), /host\[:port\]\/namespace/);
  });
});

describe('push to a real registry with htpasswd auth (docker-registry on loopback)', {
  skip,
  timeout: 10 * 60_000,
}, () => {
  const docker = new Docker();
  let dir: string;
  let registryProcess: ChildProcess;
  let registry: string;
  let host: string;
  const image = `sandgym/push-test:${process.pid}`;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sandgym-registry-'));
    const port = await freePort();
    host = `127.0.0.1:${port}`;
    registry = `${host}/sandgym-test`;
    await writeFile(
      join(dir, 'config.yml'),
      [
        'version: 0.1',
        'log: {level: error}',
        `storage: {filesystem: {rootdirectory: ${join(dir, 'data')}}}`,
        `http: {addr: "${host}"}`,
        `auth: {htpasswd: {realm: sandgym-test, path: ${HTPASSWD}}}`,
        '',
      ].join('\n'),
    );
    registryProcess = spawn(REGISTRY_BIN, ['serve', join(dir, 'config.yml')], { stdio: 'ignore' });
    await waitForRegistry(host);
    await writeDockerConfig('good.json', PASSWORD);
    await writeDockerConfig('bad.json', 'wrong-password');
    await docker.getImage(environment.image).tag({ repo: 'sandgym/push-test', tag: String(process.pid) });
  });

  after(async () => {
    registryProcess?.kill();
    // The test's tags and the digest references the push left on the base image.
    const base = (await docker.getImage(environment.image).inspect()) as {
      RepoTags?: string[];
      RepoDigests?: string[];
    };
    for (const ref of [...(base.RepoTags ?? []), ...(base.RepoDigests ?? [])])
      if (ref.includes(`push-test:${process.pid}`) || ref.startsWith(host))
        await docker
          .getImage(ref)
          .remove({ noprune: true })
          .catch(() => {});
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function writeDockerConfig(name: string, password: string) {
    const auth = Buffer.from(`sandgym:${password}`).toString('base64');
    await writeFile(join(dir, name), JSON.stringify({ auths: { [host]: { auth } } }));
  }

  it('a wrong password fails with the registry\'s "unauthorized"', async () => {
    await assert.rejects(
      ensureInRegistry(docker, image, registry, join(dir, 'bad.json')),
      /pushing "sandgym\/push-test:\d+" to 127\.0\.0\.1:\d+\/sandgym-test .*unauthorized.*docker login/s,
    );
  });

  // Before the push below: after it the image has a repo digest, so it counts as pullable from there.
  it("an unknown registry fails with the engine's message", async () => {
    await assert.rejects(
      ensureInRegistry(docker, image, `127.0.0.1:${await freePort()}/x`, join(dir, 'good.json')),
      /pushing .* failed: .*(refused|connect)/is,
    );
  });

  it('sync pushes a local-only image and creates its tool with the pushed ref; a rerun pushes nothing', async () => {
    const pushes: RegistryPush[] = [];
    const t = await startTestServer({
      keys: [],
      ags: {
        keys: AgsKeyStore.of({ [AGS_ID]: AGS_SECRET }),
        tools: await ToolStore.open(),
        region: 'ap-guangzhou',
      },
    });
    try {
      const api = new AgsClient(
        { secretId: AGS_ID, secretKey: AGS_SECRET, region: 'ap-guangzhou', endpoint: t.url },
        0,
      );
      const sync = () =>
        syncTools({
          api,
          images: [image],
          dataset: 'push-test',
          mapPath: join(dir, 'tool_mapping.json'),
          prepareImage: async (i) => {
            const r = await ensureInRegistry(docker, i, registry, join(dir, 'good.json'));
            pushes.push(r);
            return r.ref;
          },
        });
      const ref = registryRef(image, registry);
      const [first] = await sync();
      assert.deepEqual([first?.action, first?.pulledAs], ['created', ref]);
      assert.deepEqual(pushes, [{ image, ref, action: 'pushed' }]);
      const tools = await api.call<{
        SandboxToolSet: { ToolId: string; CustomConfiguration?: { Image?: string } }[];
      }>('DescribeSandboxToolList', { ToolIds: [first!.toolId] });
      assert.equal(tools.SandboxToolSet[0]?.CustomConfiguration?.Image, ref);
      const tags = await fetch(`http://${host}/v2/sandgym-test/sandgym/push-test/tags/list`, {
        headers: { authorization: `Basic ${Buffer.from(`sandgym:${PASSWORD}`).toString('base64')}` },
      });
      assert.equal(tags.status, 200);
      assert.deepEqual(await tags.json(), {
        name: 'sandgym-test/sandgym/push-test',
        tags: [String(process.pid)],
      });

      const [again] = await sync();
      assert.deepEqual([again?.action, again?.toolId], ['reused', first!.toolId]);
      assert.equal(pushes.length, 1, 'a reused tool pushes nothing');
      // A push of what the registry has sends no layer.
      assert.deepEqual(await ensureInRegistry(docker, image, registry, join(dir, 'good.json')), {
        image,
        ref,
        action: 'up to date',
      });
    } finally {
      await t.close();
    }
  });

  it('an image the engine does not have is left to be pulled from where it is', async () => {
    const r = await ensureInRegistry(docker, 'example.invalid/none:1', registry, join(dir, 'good.json'));
    assert.deepEqual(r, { image: 'example.invalid/none:1', ref: 'example.invalid/none:1', action: 'remote' });
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Waits (generously: a loaded CI machine) until the registry answers /v2/ (401 without credentials). */
async function waitForRegistry(host: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const r = await fetch(`http://${host}/v2/`);
      if (r.status === 401 || r.status === 200) return;
    } catch {}
    if (Date.now() > deadline) throw new Error(`docker-registry did not answer on ${host} within 60 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
