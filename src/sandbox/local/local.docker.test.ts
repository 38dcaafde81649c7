import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type Docker from 'dockerode';
import { connectDocker } from '../images/docker-images.ts';
import { createLocal } from './index.ts';
import type { LocalProvider } from './local-provider.ts';
import { localTestSkipReason, removeTestImage } from './test-support.ts';

const docker = await connectDocker();
const skip = (await localTestSkipReason()) ?? (docker ? undefined : 'no Docker engine answered');

describe('local provider: images from Docker', { skip: skip ?? false, timeout: 900_000 }, () => {
  let provider: LocalProvider;
  const name = `sandgym-test/from-docker:${process.pid}`;
  before(async () => {
    provider = await createLocal();
    // A Docker-only image with its own Env and WorkingDir, made from the imported base image.
    const d = docker as Docker;
    const c = await d.createContainer({
      Image: 'sandgym/base',
      Cmd: ['sh', '-c', 'echo docker > /srv/origin'],
    });
    await c.start();
    await c.wait();
    await c.commit({
      repo: name.split(':')[0],
      tag: name.split(':')[1],
      changes: ['ENV ORIGIN=docker', 'WORKDIR /srv'],
    });
    await c.remove();
  });
  after(async () => {
    await provider.close();
    await (docker as Docker)
      .getImage(name)
      .remove()
      .catch(() => {});
    await removeTestImage(provider.store, name);
  });

  it('copies an image that only Docker has, once, keeping its Env and WorkingDir', async () => {
    assert.equal(await provider.hasImage(name), true);
    const s = await provider.create({ image: name });
    const r = await s.exec('pwd; echo $ORIGIN; cat origin');
    assert.equal(r.stdout, '/srv\ndocker\ndocker\n');
    await s.close();
    const record = (await provider.store.get(name))!;
    assert.equal(record.source, 'docker');
    const t = await provider.create({ image: name });
    assert.deepEqual(
      (await provider.store.get(name))!.layers,
      record.layers,
      'the second create reuses the copy',
    );
    await t.close();
  });
});
