import { ConfigError } from '../../errors.ts';
import { currentRunId } from '../owner.ts';
import { BASE_IMAGES, DEFAULT_DEBIAN_MIRROR, findBaseImage } from './base-recipes.ts';
import { debootstrap } from './debootstrap.ts';
import { connectDocker, dockerHasRecipe, importToDocker } from './docker-images.ts';
import { resolveHome } from './home.ts';
import { type ImageRecord, ImageStore } from './image-store.ts';
import { recipeKey } from './recipe-key.ts';

export interface BuildBaseOptions {
  /** State directory; default `$SANDGYM_HOME` or `~/.cache/sandgym`. */
  home?: string;
  /** Debian mirror; default http://deb.debian.org/debian (the CLI reads SANDGYM_DEBIAN_MIRROR). */
  mirror?: string;
  /** Also import into a Docker engine when one answers (`auto`, the default) or never (`skip`). */
  docker?: 'auto' | 'skip';
  onLog?: (line: string) => void;
  signal?: AbortSignal;
}

export interface BuildBaseResult {
  image: string;
  recipeKey: string;
  /** The local image was already built from this recipe. */
  cached: boolean;
  /** What happened on the Docker side. */
  docker: 'imported' | 'current' | 'no-engine' | 'skipped';
}

/**
 * Builds a base image (`base` → `sandgym/base`) into the local cache, keyed by its recipe, then makes sure
 * a Docker engine, when one answers, has the same image. Instant when both are current.
 */
export async function buildBaseImage(name: string, options: BuildBaseOptions = {}): Promise<BuildBaseResult> {
  const base = findBaseImage(name);
  if (!base) {
    throw new ConfigError(
      `no recipe for image "${name}"; base images: ${Object.keys(BASE_IMAGES).join(', ')} ` +
        `(other images come from Docker or from snapshots)`,
    );
  }
  const store = new ImageStore(resolveHome(options.home));
  const key = recipeKey(base.recipe);
  const existing = await store.getComplete(base.image);
  const cached = existing?.recipeKey === key;
  if (!cached) {
    if (!(await store.hasLayer(key))) {
      const dir = await store.newLayerDir(currentRunId());
      try {
        options.onLog?.(`building ${base.image} with debootstrap (about a minute)`);
        await debootstrap(base.recipe, `${dir}/rootfs`, {
          mirror: options.mirror ?? DEFAULT_DEBIAN_MIRROR,
          ...(options.onLog && { onLog: options.onLog }),
          ...(options.signal && { signal: options.signal }),
        });
        await store.commitLayer(dir, key, 'debootstrap');
      } catch (e) {
        await store.discardLayerDir(dir);
        throw e;
      }
    }
    await store.put({
      name: base.image,
      layers: [key],
      env: { ...base.recipe.env },
      workdir: base.recipe.workdir,
      createdAt: new Date().toISOString(),
      recipeKey: key,
      source: 'debootstrap',
    });
  }
  const record = (await store.getComplete(base.image))!;
  return { image: base.image, recipeKey: key, cached, docker: await syncDocker(options, store, record) };
}

async function syncDocker(
  options: BuildBaseOptions,
  store: ImageStore,
  record: ImageRecord,
): Promise<BuildBaseResult['docker']> {
  if (options.docker === 'skip') return 'skipped';
  const docker = await connectDocker();
  if (!docker) return 'no-engine';
  if (await dockerHasRecipe(docker, record.name, record.recipeKey)) return 'current';
  options.onLog?.(`importing ${record.name} into Docker`);
  await importToDocker(docker, store, record);
  return 'imported';
}
