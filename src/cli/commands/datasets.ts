import { join } from 'node:path';
import { SandboxError } from '../../errors.ts';
import { resolveHome } from '../../sandbox/images/index.ts';
import type { SandboxProvider } from '../../sandbox/index.ts';
import {
  buildBundledImages,
  describeRow,
  loadTasks,
  resolveDatasetSpec,
  type SweTask,
  sortByImage,
  type Task,
} from '../../tasks/index.ts';
import { createProgress } from '../progress.ts';

/** Tasks of every dataset spec, invalid rows reported (with skipInvalid) or fatal, ordered by image. */
export async function loadDatasets(
  specs: readonly string[],
  options: { skipInvalid: boolean },
): Promise<Task[]> {
  const cacheDir = join(resolveHome(), 'hub');
  const files = (await Promise.all(specs.map((s) => resolveDatasetSpec(s, { cacheDir })))).flat();
  const loaded = await loadTasks(files, { skipInvalid: options.skipInvalid });
  for (const s of loaded.skipped) process.stderr.write(`skipped ${describeRow(s)}\n`);
  if (loaded.skipped.length) process.stderr.write(`skipped ${loaded.skipped.length} invalid row(s)\n`);
  // Tasks sharing an image run back to back: the image's layers stay warm in the page cache.
  return sortByImage(loaded.tasks);
}

/** Bundled SWE tasks ship as repositories, not images: their images are built (once, cached) here. */
export function isBundled(task: Task): task is SweTask {
  return task.kind === 'swe' && task.image.startsWith('sandgym/') && task.repo.startsWith('sandgym/');
}

/**
 * Every task's image on the provider: bundled tasks' images are built when absent; any other missing image
 * is an error listing them, before a single episode starts.
 */
export async function ensureTaskImages(tasks: readonly Task[], provider: SandboxProvider): Promise<void> {
  const images = [...new Set(tasks.map((t) => t.image))];
  const present = new Map(
    await Promise.all(images.map(async (i) => [i, await provider.hasImage(i)] as const)),
  );
  const toBuild = tasks.filter((t): t is SweTask => isBundled(t) && !present.get(t.image));
  if (toBuild.length > 0) {
    const progress = createProgress(`building ${toBuild.length} bundled task images`, toBuild.length);
    await buildBundledImages(toBuild, provider, { onBuilt: () => progress.tick() });
    progress.stop();
  }
  const built = new Set(toBuild.map((t) => t.image));
  const missing = images.filter((i) => !present.get(i) && !built.has(i));
  if (missing.length > 0) {
    const list =
      missing.slice(0, 10).join(', ') + (missing.length > 10 ? `, … (${missing.length} in all)` : '');
    throw new SandboxError(
      undefined,
      `${provider.name} provider: image(s) not found: ${list}. Run "sandgym images build base" for sandgym/base, ` +
        'or pull the images with docker (the local provider imports them from the Docker engine)',
    );
  }
}
