import { isOrphan } from '../owner.ts';
import { type GcOptions, type GcReport, LABELS } from '../types.ts';
import { type DockerApi, httpStatus } from './docker-api.ts';
import { IMAGE_KIND_LABEL, parseOwnerLabels } from './sandbox-labels.ts';

/** Removals in flight at once: each takes the engine most of a second on btrfs, and the host has 2 cores. */
const CONCURRENCY = 4;

/**
 * Removes the sandgym containers (running or not) whose owner run is dead or whose TTL has passed —
 * every one of them with `all` — then the fork images of such runs. `removed` lists the containers'
 * short ids and the fork images' names. Containers and images that vanish meanwhile are skipped; a fork
 * image still needed (by a snapshot made from one of its forks) stays.
 */
export async function collectGarbage(
  api: DockerApi,
  options: GcOptions = {},
  nowMs = Date.now(),
): Promise<GcReport> {
  const removable = (labels: Record<string, string> | undefined) =>
    options.all === true || isOrphan(parseOwnerLabels(labels), nowMs);

  const containers = await api.call('container list', (abortSignal) =>
    api.docker.listContainers({ all: true, filters: { label: [LABELS.run] }, abortSignal }),
  );
  const doomed = containers.filter((c) => removable(c.Labels));
  const removed: string[] = [];
  await forEachLimited(doomed, async (c) => {
    try {
      await api.call('container remove', (abortSignal) =>
        api.docker.getContainer(c.Id).remove({ force: true, v: true, abortSignal }),
      );
      removed.push(c.Id.slice(0, 12));
    } catch (e) {
      // 404: gone already; 409: another gc (or our own close) is removing it right now.
      if (httpStatus(e) !== 404 && httpStatus(e) !== 409) throw e;
    }
  });

  const images = await api.call('image list', (abortSignal) =>
    api.docker.listImages({ filters: { label: [`${IMAGE_KIND_LABEL}=fork`] }, abortSignal }),
  );
  await forEachLimited(
    images.filter((i) => removable(i.Labels)),
    async (image) => {
      // By name: a fork image that a snapshot builds on then only loses its tag; its layers stay.
      const ref = image.RepoTags?.find((t) => t !== '<none>:<none>') ?? image.Id;
      try {
        await api.call('image remove', (abortSignal) => api.docker.getImage(ref).remove({ abortSignal }));
        removed.push(ref);
      } catch (e) {
        if (httpStatus(e) !== 404 && httpStatus(e) !== 409) throw e;
      }
    },
  );
  return { provider: 'docker', removed, kept: containers.length - doomed.length };
}

/** Whether gc removes a container or fork image with these labels. */
export function isGarbage(
  labels: Record<string, string> | undefined,
  options: GcOptions,
  nowMs: number,
): boolean {
  return options.all === true || isOrphan(parseOwnerLabels(labels), nowMs);
}

async function forEachLimited<T>(items: T[], fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
}
