import { randomBytes } from 'node:crypto';
import type Docker from 'dockerode';
import { ConfigError, SandboxError } from '../../errors.ts';
import { normalizeImageName } from '../images/index.ts';
import type { CreateSandboxOptions, GcOptions, GcReport, SandboxLimits, SandboxProvider } from '../types.ts';
import { collectGarbage } from './collect-garbage.ts';
import { containerSpec } from './container-spec.ts';
import { type DiskQuotaSupport, diskQuotaWarning, isDiskQuotaRefusal } from './disk-quota.ts';
import { type DockerApi, engineMessage, httpStatus } from './docker-api.ts';
import type { DockerOptions } from './docker-options.ts';
import { DockerSandbox, type SandboxHost } from './docker-sandbox.ts';
import { type ImageFacts, ImageSource } from './image-source.ts';
import { remedy } from './pull-image.ts';
import { resolveLimits } from './resolve-limits.ts';
import { imageLabels, sandboxLabels, userLabels } from './sandbox-labels.ts';

/** Lifetime of a sandbox when the caller gives none (the config's `sandbox.ttl_s` default). */
export const DEFAULT_TTL_MS = 3_600_000;
const FORK_REPO = 'sandgym/fork';
/** Warnings already given in this process (engine + text): each is said once, however many providers. */
const warned = new Set<string>();

/** Everything a container is made from, checked before any call to the engine. */
interface SandboxRequest {
  image: string;
  imageRef: string;
  labels: Record<string, string>;
  limits: SandboxLimits;
  ttlMs: number;
  network: boolean;
  env: Record<string, string>;
  workdir: string | undefined;
}

/** A fork image shared by the forks made from it; removed once the last of them is removed. */
interface ForkImage {
  ref: string;
  users: number;
}

export interface DockerProviderInit {
  api: DockerApi;
  options: DockerOptions;
  runId: string;
  storageDriver: string;
  diskQuota: DiskQuotaSupport;
  hostCpus: number | undefined;
}

/**
 * Sandboxes as Docker containers. Creation waits for the container to run; removal happens in the
 * background after the kill (it takes the engine most of a second on btrfs), and `close()` waits for
 * every removal, so a process that closes its provider leaves nothing behind; one that dies leaves what
 * `gc` removes.
 */
export class DockerProvider implements SandboxProvider, SandboxHost {
  readonly name = 'docker';
  readonly api: DockerApi;
  readonly runId: string;
  /** The engine's storage driver (`btrfs`, `overlay2`, …). */
  readonly storageDriver: string;
  private diskQuota: DiskQuotaSupport;
  private readonly options: DockerOptions;
  private readonly hostCpus: number | undefined;
  private readonly live = new Set<DockerSandbox>();
  private readonly removals = new Set<Promise<void>>();
  private readonly images: ImageSource;
  private readonly forkImages = new WeakMap<DockerSandbox, ForkImage>();
  private closing: Promise<void> | undefined;

  constructor(init: DockerProviderInit) {
    this.api = init.api;
    this.options = init.options;
    this.images = new ImageSource(init.api, init.options);
    this.runId = init.runId;
    this.storageDriver = init.storageDriver;
    this.diskQuota = init.diskQuota;
    this.hostCpus = init.hostCpus;
    if (init.diskQuota === 'no') this.warn(diskQuotaWarning(init.storageDriver));
  }

  /** Whether `limits.diskBytes` is enforced; undefined until the first create settles it. */
  get diskLimitEnforced(): boolean | undefined {
    return this.diskQuota === 'try' ? undefined : this.diskQuota === 'yes';
  }

  async create(options: CreateSandboxOptions): Promise<DockerSandbox> {
    this.assertOpen();
    const request = this.resolveRequest(options);
    const image = await this.images.ensure(request.imageRef, request.image, options.signal);
    return this.createSandbox(request, image, options.signal);
  }

  async listImages(prefix: string): Promise<string[]> {
    const images = await this.api.docker.listImages();
    return images.flatMap((i) => i.RepoTags ?? []).filter((t) => t.startsWith(prefix));
  }

  async removeImage(image: string): Promise<boolean> {
    const name = normalizeImageName(image);
    if (!(await this.hasImage(name))) return false;
    await this.api.docker.getImage(name).remove();
    return true;
  }

  async hasImage(image: string): Promise<boolean> {
    return (await this.images.inspect(normalizeImageName(image))) !== undefined;
  }

  gc(options: GcOptions = {}): Promise<GcReport> {
    return collectGarbage(this.api, options);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.allSettled([...this.live].map((s) => s.close()));
      while (this.removals.size > 0) await Promise.allSettled([...this.removals]);
    })();
    return this.closing;
  }

  async fork(parent: DockerSandbox, n: number): Promise<DockerSandbox[]> {
    this.assertOpen();
    const tag = `${parent.id}-${randomBytes(4).toString('hex')}`;
    const owner = { runId: this.runId, createdAtMs: Date.now(), ttlMs: parent.init.ttlMs };
    await parent.commit({ repo: FORK_REPO, tag, labels: imageLabels('fork', owner) });
    const forkImage: ForkImage = { ref: `${FORK_REPO}:${tag}`, users: n };
    const { limits, ttlMs, network, env, workdir } = parent.init;
    const request: SandboxRequest = {
      limits,
      ttlMs,
      network,
      env,
      workdir,
      image: forkImage.ref,
      imageRef: forkImage.ref,
      labels: sandboxLabels({ ...owner, createdAtMs: Date.now() }, userLabels(parent.labels)),
    };
    let facts: ImageFacts | undefined;
    try {
      facts = await this.images.inspect(forkImage.ref);
      if (!facts)
        throw new SandboxError(parent.id, `fork image ${forkImage.ref} vanished right after the commit`);
    } catch (e) {
      this.releaseForkImage({ ...forkImage, users: 1 });
      throw e;
    }
    const made = await Promise.allSettled(
      Array.from({ length: n }, () => this.createSandbox(request, facts, undefined, forkImage)),
    );
    const failed = made.find((r) => r.status === 'rejected');
    const kids = made.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    if (failed) {
      await Promise.allSettled(kids.map((k) => k.close()));
      throw failed.reason;
    }
    return kids;
  }

  async dispose(sandbox: DockerSandbox): Promise<void> {
    this.live.delete(sandbox);
    try {
      await this.api.call(
        'container kill',
        (abortSignal) => sandbox.container.kill({ signal: 'SIGKILL', abortSignal }),
        {
          sandboxId: sandbox.id,
        },
      );
    } catch (e) {
      // 404: already gone; 409: not running (died or TTL ran out). Anything else: the removal kills too.
      if (httpStatus(e) !== 404 && httpStatus(e) !== 409) {
        await this.removeContainer(sandbox);
        return;
      }
    }
    this.track(this.removeContainer(sandbox).catch(() => {}));
  }

  private resolveRequest(options: CreateSandboxOptions): SandboxRequest {
    if (typeof options.image !== 'string')
      throw new ConfigError('create: image must be a string like "sandgym/base"');
    const ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    if (!Number.isSafeInteger(ttlMs) || ttlMs < 1000) {
      throw new ConfigError(`ttlMs must be an integer number of milliseconds of at least 1000, got ${ttlMs}`);
    }
    const request: SandboxRequest = {
      image: options.image,
      imageRef: normalizeImageName(options.image),
      labels: sandboxLabels({ runId: this.runId, createdAtMs: Date.now(), ttlMs }, options.labels),
      limits: resolveLimits(options.limits, this.hostCpus),
      ttlMs,
      network: options.network ?? false,
      env: { ...options.env },
      workdir: options.workdir,
    };
    containerSpec({ ...request, image: request.imageRef }); // throws ConfigError for a bad env or workdir
    return request;
  }

  private async createSandbox(
    request: SandboxRequest,
    image: ImageFacts,
    signal?: AbortSignal,
    forkImage?: ForkImage,
  ): Promise<DockerSandbox> {
    let container: Docker.Container;
    try {
      container = await this.createContainer(request, image, signal);
    } catch (e) {
      if (forkImage) this.releaseForkImage(forkImage);
      throw e;
    }
    const enforcedLimits =
      this.diskLimitEnforced === false
        ? (['memoryBytes', 'pids', 'cpus', 'outputBytes'] as const)
        : undefined;
    const sandbox = new DockerSandbox(this, {
      ...request,
      container,
      ...(enforcedLimits ? { enforcedLimits } : {}),
    });
    if (forkImage) this.forkImages.set(sandbox, forkImage);
    this.live.add(sandbox);
    try {
      await this.api.call('container start', (abortSignal) => container.start({ abortSignal }), {
        signal,
        sandboxId: sandbox.id,
      });
    } catch (e) {
      void sandbox.close();
      if (signal?.aborted) throw signal.reason;
      throw new SandboxError(sandbox.id, `its container did not start: ${engineMessage(e)}`, {
        cause: e,
        isRetryable: true,
      });
    }
    if (this.closing) {
      await sandbox.close();
      this.assertOpen();
    }
    return sandbox;
  }

  private async createContainer(
    request: SandboxRequest,
    image: ImageFacts,
    signal?: AbortSignal,
  ): Promise<Docker.Container> {
    const quota = this.diskQuota;
    const spec = containerSpec({
      ...request,
      image: request.imageRef,
      storageSizeBytes: quota === 'no' ? undefined : image.sizeBytes + request.limits.diskBytes,
      fileSizeLimitBytes: quota === 'no' ? request.limits.diskBytes : undefined,
    });
    // Named, so that a create whose answer we never got (timeout, abort) can still be removed.
    const name = `sandgym-${randomBytes(6).toString('hex')}`;
    try {
      return await this.api.call(
        'container create',
        (abortSignal) => this.api.docker.createContainer({ ...spec, name, abortSignal }),
        { signal },
      );
    } catch (e) {
      if (quota === 'try' && isDiskQuotaRefusal(e)) {
        this.diskQuota = 'no';
        this.warn(diskQuotaWarning(this.storageDriver));
        return this.createContainer(request, image, signal);
      }
      if (httpStatus(e) === undefined) this.track(this.removeByName(name));
      if (signal?.aborted) throw signal.reason;
      throw this.createError(e, request);
    }
  }

  private createError(e: unknown, request: SandboxRequest): unknown {
    const status = httpStatus(e);
    if (status === 404) {
      return new SandboxError(
        undefined,
        `image "${request.image}" disappeared while creating a sandbox; ${remedy(request.image)}`,
        {
          cause: e,
        },
      );
    }
    if (status === 400)
      return new ConfigError(`the Docker engine refused the sandbox: ${engineMessage(e)}`, { cause: e });
    if (status !== undefined) {
      return new SandboxError(
        undefined,
        `the Docker engine could not create a sandbox: ${engineMessage(e)}`,
        {
          cause: e,
          isRetryable: true,
        },
      );
    }
    return e;
  }

  private async removeContainer(sandbox: DockerSandbox): Promise<void> {
    try {
      await this.api.call('container remove', (abortSignal) =>
        sandbox.container.remove({ force: true, v: true, abortSignal }),
      );
    } catch (e) {
      // A removal that failed or outlived its deadline leaves the fork image in use: gc takes both.
      if (httpStatus(e) !== 404) throw e;
    }
    const forkImage = this.forkImages.get(sandbox);
    if (forkImage) this.releaseForkImage(forkImage);
  }

  private async removeByName(name: string): Promise<void> {
    await this.api
      .call('container remove', (abortSignal) =>
        this.api.docker.getContainer(name).remove({ force: true, v: true, abortSignal }),
      )
      .catch(() => {});
  }

  private releaseForkImage(forkImage: ForkImage): void {
    forkImage.users--;
    if (forkImage.users > 0) return;
    this.track(
      this.api
        .call('image remove', (abortSignal) =>
          this.api.docker.getImage(forkImage.ref).remove({ abortSignal }),
        )
        .then(
          () => {},
          () => {},
        ),
    );
  }

  /** Background work that `close()` waits for; its failures are left to gc. */
  private track(work: Promise<void>): void {
    this.removals.add(work);
    void work.finally(() => this.removals.delete(work));
  }

  private warn(message: string): void {
    const key = `${this.api.endpoint}\n${message}`;
    if (warned.has(key)) return;
    warned.add(key);
    if (this.options.onWarning) this.options.onWarning(message);
    else process.emitWarning(message, { code: 'SANDGYM_DOCKER_DISK_LIMIT' });
  }

  private assertOpen(): void {
    if (this.closing) throw new SandboxError(undefined, 'the docker provider is closed; create a new one');
  }
}
