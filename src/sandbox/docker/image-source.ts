import { SandboxError } from '../../errors.ts';
import { type DockerApi, httpStatus } from './docker-api.ts';
import type { DockerOptions } from './docker-options.ts';
import { pullImage, remedy } from './pull-image.ts';
import { registryAuth } from './registry-auth.ts';

/** What creating a container needs to know about its image. */
export interface ImageFacts {
  /** The image's size, which a disk quota must include (the quota counts image + writes). */
  sizeBytes: number;
}

/**
 * Where sandboxes' images come from: the engine's own store, else a pull (with the docker CLI's
 * credentials). Concurrent creates of one absent image share one pull.
 */
export class ImageSource {
  private readonly pulls = new Map<string, Promise<void>>();

  constructor(
    private readonly api: DockerApi,
    private readonly options: DockerOptions,
  ) {}

  /** The image `ref` (normalized), pulled first when absent; `name` is how the user wrote it. */
  async ensure(ref: string, name: string, signal?: AbortSignal): Promise<ImageFacts> {
    const present = await this.inspect(ref, signal);
    if (present) return present;
    let pull = this.pulls.get(ref);
    if (!pull) {
      pull = this.pull(ref, name).finally(() => this.pulls.delete(ref));
      this.pulls.set(ref, pull);
    }
    await pull;
    const pulled = await this.inspect(ref, signal);
    if (!pulled)
      throw new SandboxError(undefined, `image "${name}" is missing even after a pull; ${remedy(name)}`);
    return pulled;
  }

  /** The image's facts, or undefined when the engine does not have it. */
  async inspect(ref: string, signal?: AbortSignal): Promise<ImageFacts | undefined> {
    try {
      const info = await this.api.call('image inspect', () => this.api.docker.getImage(ref).inspect(), {
        signal,
      });
      return { sizeBytes: info.Size };
    } catch (e) {
      if (httpStatus(e) === 404) return undefined;
      throw e;
    }
  }

  private async pull(ref: string, name: string): Promise<void> {
    await pullImage(this.api, ref, {
      displayName: name,
      auth: await registryAuth(ref, this.options.dockerConfigPath),
      onProgress: this.options.onPullProgress,
      timeoutMs: this.options.pullTimeoutMs,
      idleMs: this.options.pullIdleMs,
    });
  }
}
