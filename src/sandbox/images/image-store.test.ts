import assert from 'node:assert/strict';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { formatRunId } from '../owner.ts';
import { type ImageRecord, ImageStore } from './image-store.ts';

function record(name: string, layers: string[]): ImageRecord {
  return {
    name,
    layers,
    env: { A: '1' },
    workdir: '/',
    createdAt: new Date().toISOString(),
    recipeKey: 'k',
    source: 'snapshot',
  };
}

async function layer(store: ImageStore, key: string, runId = 'test'): Promise<void> {
  const dir = await store.newLayerDir(runId);
  await writeFile(join(dir, 'rootfs', 'file'), key);
  await store.commitLayer(dir, key, 'snapshot');
}

const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );

describe('ImageStore', () => {
  let home: string;
  let store: ImageStore;
  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'sg-store-'));
    store = new ImageStore(home);
  });
  after(() => rm(home, { recursive: true, force: true }));

  it('keeps images under their normalized names and lists them sorted', async () => {
    await layer(store, 'l1');
    await store.put(record('b/img:latest', ['l1']));
    await store.put(record('a/img:v2', ['l1']));
    assert.deepEqual((await store.get('b/img'))?.layers, ['l1']);
    assert.deepEqual(
      (await store.list()).map((r) => r.name),
      ['a/img:v2', 'b/img:latest'],
    );
    assert.equal(await store.get('c/none'), undefined);
  });

  it('counts an image complete only when all its layers are present', async () => {
    await store.put(record('c/partial', ['l1', 'missing']));
    assert.equal(await store.getComplete('c/partial'), undefined);
    assert.ok(await store.getComplete('b/img'));
  });

  it('commits a layer once, recording its size; a second commit of the same key keeps the first', async () => {
    await layer(store, 'dup');
    const again = await store.newLayerDir('test');
    await writeFile(join(again, 'rootfs', 'other'), 'x');
    const info = await store.commitLayer(again, 'dup', 'snapshot');
    assert.equal(info.sizeBytes > 0, true);
    assert.equal(await exists(join(store.layerRootfs('dup'), 'other')), false);
    assert.equal(await exists(again), false, 'the loser is cleaned up');
  });

  it('prunes only layers that no image refers to, no sandbox uses and that are old enough', async () => {
    await layer(store, 'orphan');
    await layer(store, 'busy');
    assert.deepEqual(await store.pruneLayers(new Set(['busy'])), [], 'young layers stay');
    const later = Date.now() + 3_600_000;
    const removed = await store.pruneLayers(new Set(['busy']), { nowMs: later });
    assert.deepEqual(removed.sort(), ['dup', 'orphan']);
    assert.ok(await store.hasLayer('l1'), 'referenced by an image');
    assert.ok(await store.hasLayer('busy'), 'in use by a sandbox');
    await store.remove('a/img:v2');
    await store.remove('b/img');
    assert.deepEqual(await store.pruneLayers(new Set(), { candidates: ['l1'], minAgeMs: 0 }), []);
    await store.remove('c/partial');
    assert.deepEqual(await store.pruneLayers(new Set(), { candidates: ['l1'], minAgeMs: 0 }), ['l1']);
  });

  it('two gc runs pruning at once each take a layer at most once and neither fails', async () => {
    const keys = ['race1', 'race2', 'race3', 'race4'];
    for (const k of keys) await layer(store, k);
    const [a, b] = await Promise.all([
      store.pruneLayers(new Set(), { candidates: keys, minAgeMs: 0 }),
      store.pruneLayers(new Set(), { candidates: keys, minAgeMs: 0 }),
    ]);
    assert.deepEqual([...a, ...b].sort(), keys);
  });

  it('sweeps half-built layers of dead builders only', async () => {
    const dead = formatRunId({ host: 'h', boot: 'b', pid: 1, start: 1 });
    const live = formatRunId({ host: 'h', boot: 'b', pid: 2, start: 2 });
    const deadDir = await store.newLayerDir(dead);
    const liveDir = await store.newLayerDir(live);
    const removed = await store.removeStaleTemps((run) => run === live);
    assert.equal(removed.length, 1);
    assert.equal(await exists(deadDir), false);
    assert.equal(await exists(liveDir), true);
  });
});
