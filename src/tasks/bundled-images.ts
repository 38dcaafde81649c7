import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUNDLED, materializeRepo } from '../../datasets/bundled/index.ts';
import { buildImage } from '../sandbox/images/index.ts';
import type { SandboxProvider } from '../sandbox/index.ts';
import type { SweTask } from './types.ts';

export interface BundledImageOptions {
  /** Images built at once. */
  concurrency?: number;
  onBuilt?: (image: string, cached: boolean) => void;
  home?: string;
}

/**
 * Builds the image of each bundled SWE task on a provider, as SWE-bench ships one image per instance:
 * `sandgym/base` with the task's buggy repository at `/testbed`, HEAD at its base_commit. Keyed by content,
 * so a second run is a cache hit. The repository's git index is dropped before upload and rebuilt inside
 * (its stat data differs on every checkout, and would defeat the cache).
 */
export async function buildBundledImages(
  tasks: readonly SweTask[],
  provider: SandboxProvider,
  options: BundledImageOptions = {},
): Promise<void> {
  const queue = [...tasks];
  const worker = async () => {
    for (let task = queue.shift(); task; task = queue.shift()) {
      const dir = await mkdtemp(join(tmpdir(), 'sandgym-bundled-'));
      try {
        const repo = join(dir, 'testbed');
        await materializeRepo(
          { repo: task.repo, patch: task.patch, test_patch: task.testPatch, base_commit: task.baseCommit },
          BUNDLED.projectsDir,
          repo,
        );
        await rm(join(repo, '.git', 'index'));
        const result = await buildImage(
          {
            name: task.image,
            from: 'sandgym/base',
            workdir: '/testbed',
            steps: [
              { upload: { hostDir: repo, sandboxDir: '/testbed' } },
              { run: `cd /testbed && git reset -q && test "$(git rev-parse HEAD)" = ${task.baseCommit}` },
            ],
          },
          provider,
          options.home ? { home: options.home } : {},
        );
        options.onBuilt?.(result.image, result.cached);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 2) }, worker));
}
