import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SandgymError } from '../../errors.ts';
import { runHostCommand } from './host-command.ts';
import { normalizeImageName } from './image-name.ts';

/** One image of the local cache: an ordered stack of read-only layers plus how to run things in it. */
export interface ImageRecord {
  /** Normalized name (`sandgym/base:latest`). */
  name: string;
  /** Layer keys, topmost first (the order of overlayfs `lowerdir`). */
  layers: string[];
  env: Record<string, string>;
  workdir: string;
  /** ISO time the record was written. */
  createdAt: string;
  /** What made it: a recipe's sha256, `docker:<image id>`, or the snapshot's layer key. */
  recipeKey: string;
  source: 'debootstrap' | 'docker' | 'snapshot';
}

export interface LayerInfo {
  key: string;
  sizeBytes: number;
  createdAt: string;
  source: ImageRecord['source'];
}

const TEMP_PREFIX = '.tmp-';

/**
 * The content-keyed layer cache and the image index under `<home>` (see `home.ts`). Several processes may
 * use it at once: every write is a complete file or directory renamed into place, so readers see the
 * old state or the new one, never half of either, and a killed writer leaves only a `.tmp-*` entry that
 * `removeStaleTemps` sweeps up.
 */
export class ImageStore {
  readonly layersDir: string;
  readonly imagesDir: string;

  constructor(readonly home: string) {
    this.layersDir = join(home, 'layers');
    this.imagesDir = join(home, 'images');
  }

  layerRootfs(key: string): string {
    return join(this.layersDir, key, 'rootfs');
  }

  private indexPath(name: string): string {
    return join(this.imagesDir, `${encodeURIComponent(normalizeImageName(name))}.json`);
  }

  async get(name: string): Promise<ImageRecord | undefined> {
    try {
      return JSON.parse(await readFile(this.indexPath(name), 'utf8')) as ImageRecord;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new SandgymError(
        `image index entry of "${name}" is unreadable; run "sandgym images rm ${name}"`,
        {
          cause: e,
        },
      );
    }
  }

  /** The image, if it and all its layers are present. */
  async getComplete(name: string): Promise<ImageRecord | undefined> {
    const record = await this.get(name);
    if (!record) return undefined;
    const present = await Promise.all(record.layers.map((k) => this.hasLayer(k)));
    return present.every(Boolean) ? record : undefined;
  }

  async put(record: ImageRecord): Promise<void> {
    const path = this.indexPath(record.name);
    await mkdir(this.imagesDir, { recursive: true });
    const tmp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
    await writeFile(tmp, `${JSON.stringify(record, null, 2)}\n`);
    await rename(tmp, path);
  }

  async list(): Promise<ImageRecord[]> {
    const files = await readdir(this.imagesDir).catch(() => [] as string[]);
    const records = await Promise.all(
      files.filter((f) => f.endsWith('.json')).map((f) => this.get(decodeURIComponent(f.slice(0, -5)))),
    );
    return records
      .filter((r): r is ImageRecord => r !== undefined)
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Removes the index entry; its layers stay until `pruneLayers`. Returns the removed record. */
  async remove(name: string): Promise<ImageRecord | undefined> {
    const record = await this.get(name);
    if (record) await rm(this.indexPath(name), { force: true });
    return record;
  }

  async hasLayer(key: string): Promise<boolean> {
    return stat(join(this.layersDir, key, 'layer.json')).then(
      () => true,
      () => false,
    );
  }

  async layerInfo(key: string): Promise<LayerInfo | undefined> {
    const text = await readFile(join(this.layersDir, key, 'layer.json'), 'utf8').catch(() => undefined);
    return text === undefined ? undefined : (JSON.parse(text) as LayerInfo);
  }

  /**
   * A fresh directory to build a layer in; fill `<dir>/rootfs`, then `commitLayer`. It is 0700: a layer
   * holds what a sandbox's root made, which no other host user may read or run.
   */
  async newLayerDir(runId: string): Promise<string> {
    const dir = join(this.layersDir, `${TEMP_PREFIX}${runId}-${randomBytes(4).toString('hex')}`);
    await mkdir(this.layersDir, { recursive: true });
    await mkdir(dir, { mode: 0o700 });
    await mkdir(join(dir, 'rootfs'));
    return dir;
  }

  /**
   * Moves a built layer into place under `key`. When another process committed the same key first, its
   * layer wins and ours is dropped: both hold the same content by construction.
   */
  async commitLayer(tempDir: string, key: string, source: LayerInfo['source']): Promise<LayerInfo> {
    const { stdout } = await runHostCommand('du', ['-s', '-B1', '--apparent-size', join(tempDir, 'rootfs')]);
    const info: LayerInfo = {
      key,
      sizeBytes: Number(stdout.split('\t')[0]),
      createdAt: new Date().toISOString(),
      source,
    };
    await writeFile(join(tempDir, 'layer.json'), `${JSON.stringify(info, null, 2)}\n`);
    try {
      await rename(tempDir, join(this.layersDir, key));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw e;
      await rm(tempDir, { recursive: true, force: true });
      return (await this.layerInfo(key)) ?? info;
    }
    return info;
  }

  /** Deletes a layer being built (after a failed build). */
  async discardLayerDir(tempDir: string): Promise<void> {
    await rm(tempDir, { recursive: true, force: true });
  }

  /** Keys of all committed layers. */
  async layerKeys(): Promise<string[]> {
    const names = await readdir(this.layersDir).catch(() => [] as string[]);
    return names.filter((n) => !n.startsWith(TEMP_PREFIX));
  }

  /**
   * Deletes the layers no image refers to, except those in `inUse` (lower layers of running sandboxes:
   * deleting files under a mounted overlay is undefined behaviour) and those younger than `minAgeMs`
   * (a builder commits its layer a moment before it writes the image that refers to it). `candidates`
   * limits the sweep to some layers. Returns the deleted keys.
   */
  async pruneLayers(
    inUse: ReadonlySet<string>,
    options: { candidates?: readonly string[]; minAgeMs?: number; nowMs?: number } = {},
  ): Promise<string[]> {
    const { minAgeMs = 10 * 60_000, nowMs = Date.now() } = options;
    const referenced = new Set((await this.list()).flatMap((r) => r.layers));
    const removed: string[] = [];
    for (const key of options.candidates ?? (await this.layerKeys())) {
      if (referenced.has(key) || inUse.has(key)) continue;
      const info = await this.layerInfo(key);
      if (!info || nowMs - Date.parse(info.createdAt) < minAgeMs) continue;
      // Rename first so that a reader never sees a half-deleted layer with its layer.json still there.
      const trash = join(this.layersDir, `${TEMP_PREFIX}trash-${randomBytes(4).toString('hex')}`);
      // A concurrent gc (every run starts with one) may have taken the same layer first: it is gone either way.
      const taken = await rename(join(this.layersDir, key), trash).then(
        () => true,
        (e: NodeJS.ErrnoException) => {
          if (e.code === 'ENOENT') return false;
          throw e;
        },
      );
      if (!taken) continue;
      await rm(trash, { recursive: true, force: true });
      removed.push(key);
    }
    return removed;
  }

  /** Deletes `.tmp-*` build directories whose builder is gone (`isLive(runId)` false). */
  async removeStaleTemps(isLive: (runId: string) => boolean): Promise<string[]> {
    const names = await readdir(this.layersDir).catch(() => [] as string[]);
    const removed: string[] = [];
    for (const name of names) {
      if (!name.startsWith(TEMP_PREFIX)) continue;
      const runId = name.slice(TEMP_PREFIX.length).replace(/-[0-9a-f]{8}$/, '');
      if (runId.startsWith('trash') || !isLive(runId)) {
        await rm(join(this.layersDir, name), { recursive: true, force: true });
        removed.push(name);
      }
    }
    return removed;
  }
}
