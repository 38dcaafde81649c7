import type { Readable } from 'node:stream';
import { SandboxError } from '../../errors.ts';
import { type DockerApi, engineMessage } from './docker-api.ts';
import type { RegistryAuth } from './registry-auth.ts';

/** One line of the engine's pull progress. */
export interface PullProgress {
  image: string;
  /** The engine's words: "Pulling fs layer", "Downloading", "Pull complete", … */
  status: string;
  /** The layer this line is about, when it is about one. */
  layer?: string;
  currentBytes?: number;
  totalBytes?: number;
}

export interface PullOptions {
  /** The image as the user wrote it, for messages (default: the reference pulled). */
  displayName?: string | undefined;
  auth?: RegistryAuth | undefined;
  onProgress?: ((progress: PullProgress) => void) | undefined;
  /** Deadline of the whole pull. */
  timeoutMs: number;
  /** A pull that reports nothing for this long is stuck. */
  idleMs: number;
  signal?: AbortSignal | undefined;
}

interface ProgressLine {
  status?: string;
  id?: string;
  progressDetail?: { current?: number; total?: number };
  error?: string;
  errorDetail?: { message?: string };
}

/**
 * Pulls `image` into the engine. Failure (unknown image, no registry access, timeout) is a `SandboxError`
 * that names the image and what to do instead.
 */
export async function pullImage(api: DockerApi, image: string, options: PullOptions): Promise<void> {
  const controller = new AbortController();
  const relay = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', relay, { once: true });
  const overall = setTimeout(
    () => controller.abort(new Error(`no result within ${options.timeoutMs} ms`)),
    options.timeoutMs,
  );
  try {
    const stream = (await api.call(
      'image pull',
      (abortSignal) =>
        api.docker.pull(image, {
          ...(options.auth && { authconfig: options.auth }),
          abortSignal,
        }) as Promise<Readable>,
      { signal: controller.signal },
    )) as Readable;
    await followProgress(stream, image, options, controller);
  } catch (e) {
    if (options.signal?.aborted) throw options.signal.reason;
    const reason = controller.signal.aborted ? String(controller.signal.reason?.message) : engineMessage(e);
    const name = options.displayName ?? image;
    throw new SandboxError(
      undefined,
      `image "${name}" is not available locally and pulling it failed (${reason}); ${remedy(name)}`,
      { cause: e },
    );
  } finally {
    clearTimeout(overall);
    options.signal?.removeEventListener('abort', relay);
  }
}

async function followProgress(
  stream: Readable,
  image: string,
  options: PullOptions,
  controller: AbortController,
): Promise<void> {
  let idle = setTimeout(() => stop(), options.idleMs);
  const stop = () => controller.abort(new Error(`no progress for ${options.idleMs} ms`));
  const onAbort = () => stream.destroy(controller.signal.reason);
  controller.signal.addEventListener('abort', onAbort, { once: true });
  let buffered = '';
  try {
    for await (const chunk of stream) {
      clearTimeout(idle);
      idle = setTimeout(stop, options.idleMs);
      buffered += (chunk as Buffer).toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) handleLine(line, image, options);
    }
    handleLine(buffered, image, options);
  } finally {
    clearTimeout(idle);
    controller.signal.removeEventListener('abort', onAbort);
  }
}

function handleLine(line: string, image: string, options: PullOptions): void {
  if (!line.trim()) return;
  const event = JSON.parse(line) as ProgressLine;
  if (event.error) throw new Error(event.errorDetail?.message ?? event.error);
  if (!event.status || !options.onProgress) return;
  options.onProgress({
    image,
    status: event.status,
    ...(event.id !== undefined && { layer: event.id }),
    ...(event.progressDetail?.current !== undefined && { currentBytes: event.progressDetail.current }),
    ...(event.progressDetail?.total !== undefined && { totalBytes: event.progressDetail.total }),
  });
}

/** What to do about an image that cannot be pulled. */
export function remedy(image: string): string {
  const own = /^sandgym\/([^:/]+)/.exec(image);
  if (own) return `build it with "sandgym images build ${own[1]}"`;
  return (
    `check the name, or make the image available to this Docker engine ("docker pull ${image}", or ` +
    '"docker load -i <file>"; run "docker login" first if the registry needs it)'
  );
}
