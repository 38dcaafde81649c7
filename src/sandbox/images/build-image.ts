import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SandgymError } from '../../errors.ts';
import type { SandboxProvider } from '../types.ts';
import { hashDirectory } from './hash-dir.ts';
import { resolveHome } from './home.ts';
import { normalizeImageName } from './image-name.ts';
import { ImageStore } from './image-store.ts';
import { recipeKey } from './recipe-key.ts';

/** One step of a derived image: copy a host directory in, or run a shell command. */
export type ImageBuildStep = { upload: { hostDir: string; sandboxDir: string } } | { run: string };

export interface ImageBuildSpec {
  /** The image to make, e.g. `sandgym-task/semverkit-1`. */
  name: string;
  /** The image it starts from, e.g. `sandgym/base`. */
  from: string;
  steps: readonly ImageBuildStep[];
  /** Environment and working directory of the build sandbox; providers keep them in the image. */
  env?: Record<string, string>;
  workdir?: string;
}

export interface BuildImageOptions {
  /** State directory holding the build records; default `$SANDGYM_HOME` or `~/.cache/sandgym`. */
  home?: string;
  /** Deadline of each `run` step; default 30 minutes. */
  stepTimeoutMs?: number;
  onLog?: (line: string) => void;
  signal?: AbortSignal;
}

export interface BuildImageResult {
  image: string;
  /** Content key of the build: the spec with uploads hashed and the parent's own key. */
  key: string;
  cached: boolean;
}

interface BuildRecord {
  image: string;
  key: string;
}

function recordPath(home: string, provider: string, image: string): string {
  return join(home, 'builds', provider, `${encodeURIComponent(image)}.json`);
}

async function readRecord(path: string): Promise<BuildRecord | undefined> {
  return readFile(path, 'utf8').then(
    (t) => JSON.parse(t) as BuildRecord,
    () => undefined,
  );
}

/** The key an image was built from: its build record on this provider, else the local index's recipe. */
async function parentKey(home: string, provider: string, image: string): Promise<string> {
  const record = await readRecord(recordPath(home, provider, image));
  if (record) return record.key;
  return (await new ImageStore(home).get(image))?.recipeKey ?? `unknown:${image}`;
}

/**
 * Builds an image on any provider through the Sandbox contract: create a sandbox from `from`, apply the
 * steps, snapshot it as `name`. Keyed by content (uploaded files hashed, the parent's key included), so
 * building the same spec again is a cache hit as long as the provider still has the image.
 */
export async function buildImage(
  spec: ImageBuildSpec,
  provider: SandboxProvider,
  options: BuildImageOptions = {},
): Promise<BuildImageResult> {
  const home = resolveHome(options.home);
  const image = normalizeImageName(spec.name);
  const from = normalizeImageName(spec.from);
  const steps = await Promise.all(
    spec.steps.map(async (s) =>
      'upload' in s
        ? { upload: s.upload.sandboxDir, content: await hashDirectory(s.upload.hostDir) }
        : { run: s.run },
    ),
  );
  const key = recipeKey({
    from,
    fromKey: await parentKey(home, provider.name, from),
    steps,
    env: spec.env ?? {},
    workdir: spec.workdir ?? null,
  });
  const path = recordPath(home, provider.name, image);
  if ((await readRecord(path))?.key === key && (await provider.hasImage(image))) {
    return { image, key, cached: true };
  }
  options.onLog?.(`building ${image} from ${from} (${spec.steps.length} steps)`);
  const sandbox = await provider.create({
    image: from,
    labels: { 'sandgym.build': image },
    ...(spec.env && { env: spec.env }),
    ...(spec.workdir && { workdir: spec.workdir }),
    ...(options.signal && { signal: options.signal }),
  });
  try {
    for (const [i, step] of spec.steps.entries()) {
      if ('upload' in step) {
        await sandbox.uploadDir(step.upload.hostDir, step.upload.sandboxDir);
        continue;
      }
      const r = await sandbox.exec(step.run, {
        timeoutMs: options.stepTimeoutMs ?? 30 * 60_000,
        ...(options.signal && { signal: options.signal }),
      });
      if (r.exitCode !== 0) {
        const why = r.timedOut ? 'timed out' : `exited with ${r.exitCode}`;
        const tail = (r.stderr.trim() || r.stdout.trim()).split('\n').slice(-10).join('\n');
        throw new SandgymError(`building image "${image}": step ${i + 1} (${step.run}) ${why}:\n${tail}`);
      }
    }
    await sandbox.snapshot(image);
  } finally {
    await sandbox.close();
  }
  await mkdir(join(home, 'builds', provider.name), { recursive: true });
  const tmp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, JSON.stringify({ image, key } satisfies BuildRecord));
  await rename(tmp, path);
  return { image, key, cached: false };
}
