import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join, posix } from 'node:path';
import { ConfigError, SandboxError } from '../../errors.ts';
import { checkEnv } from '../call-checks.ts';
import { findBaseImage } from '../images/base-recipes.ts';
import { connectDocker, exportFromDocker } from '../images/docker-images.ts';
import { runHostCommand } from '../images/host-command.ts';
import { normalizeImageName } from '../images/image-name.ts';
import { type ImageRecord, ImageStore } from '../images/image-store.ts';
import { recipeKey } from '../images/recipe-key.ts';
import { sanitizeLayer } from '../images/sanitize-layer.ts';
import {
  type CreateSandboxOptions,
  type GcOptions,
  type GcReport,
  LABELS,
  type SandboxLimits,
  type SandboxProvider,
} from '../types.ts';
import { ForkServer, type SpawnHost } from './fork-server.ts';
import { gcLocal } from './gc.ts';
import type { HostTools } from './host-tools.ts';
import { launchInit } from './launch-init.ts';
import type { LimitDriver } from './limit-driver.ts';
import { resolveLimits } from './limits.ts';
import { LocalSandbox, type SandboxOwner } from './local-sandbox.ts';
import { connectSandbox, type HostNetwork, prepareHostNetwork } from './network.ts';
import { layersInUse, removeSandboxDir } from './sandbox-dirs.ts';
import { type SandboxMeta, writeMeta } from './sandbox-meta.ts';

/** What every exec starts from, under the image's and the sandbox's own environment. */
const DEFAULT_ENV = {
  PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
  HOME: '/root',
  LANG: 'C.UTF-8',
};
const DEFAULT_TTL_MS = 3_600_000;

export interface LocalProviderConfig {
  home: string;
  runId: string;
  tools: HostTools;
  limitDriver: LimitDriver;
  /** Copy images that are missing locally from a Docker engine when one answers. */
  importFromDocker: boolean;
}

/** Everything a sandbox needs to start; forks copy it from their parent. */
interface SandboxSpec {
  image: string;
  layers: readonly string[];
  env: Record<string, string>;
  workdir: string;
  labels: Record<string, string>;
  ttlMs: number;
  limits: SandboxLimits;
  network: boolean;
}

/**
 * The `local` provider: bubblewrap sandboxes over overlayfs, with limits from cgroups (or rlimits), images
 * from the local layer cache. Holds the sandboxes it made, so `close()` can end them all. A sandbox's
 * `close()` returns once its processes are gone; its cgroups and directory go in the background, and
 * the provider's `close()` waits for them, so a process that closes its provider leaves nothing behind.
 */
export class LocalProvider implements SandboxProvider, SandboxOwner {
  readonly name = 'local';
  readonly store: ImageStore;
  readonly sandboxesDir: string;
  private readonly open = new Set<LocalSandbox>();
  private closed = false;
  private forkServer: ForkServer | undefined;
  private readonly releases = new Set<Promise<void>>();
  private hostNetwork: Promise<HostNetwork> | undefined;

  constructor(readonly config: LocalProviderConfig) {
    this.store = new ImageStore(config.home);
    this.sandboxesDir = join(config.home, 'sandboxes');
  }

  /**
   * Starts the host processes of sandboxes (sandgym-helper start, and enter for each exec) through a
   * fork server (restarted if it died; its sandboxes died with it).
   */
  private readonly spawnHost: SpawnHost = (file, args, options) => {
    if (!this.forkServer?.alive) this.forkServer = new ForkServer(this.config.tools.helper);
    return this.forkServer.spawn(file, args, options);
  };

  /** The host side of sandboxes with network access, readied on the first one (see network.ts). */
  private network(): Promise<HostNetwork> {
    this.hostNetwork ??= prepareHostNetwork();
    // A failure is not cached: the next sandbox tries again (after the host was fixed).
    void this.hostNetwork.catch(() => (this.hostNetwork = undefined));
    return this.hostNetwork;
  }

  get limitDriver(): LimitDriver {
    return this.config.limitDriver;
  }

  /** The sandboxes this provider made that are not closed yet. */
  get sandboxes(): readonly LocalSandbox[] {
    return [...this.open];
  }

  async create(options: CreateSandboxOptions): Promise<LocalSandbox> {
    options.signal?.throwIfAborted();
    this.assertOpen();
    const limits = resolveLimits(options.limits);
    const ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0) {
      throw new ConfigError(`invalid sandbox ttlMs ${ttlMs}: expected a positive integer of milliseconds`);
    }
    if (options.workdir !== undefined && !posix.isAbsolute(options.workdir)) {
      throw new ConfigError(`invalid sandbox workdir "${options.workdir}": expected an absolute path`);
    }
    checkEnv('(new)', options.env);
    for (const [k, v] of Object.entries(options.labels ?? {})) {
      if (typeof v !== 'string') throw new ConfigError(`invalid sandbox label ${k}: values are strings`);
    }
    const image = await this.resolveImage(options.image);
    return this.start(
      {
        image: image.name,
        layers: image.layers,
        env: { ...DEFAULT_ENV, ...image.env, ...options.env },
        workdir: options.workdir ?? image.workdir,
        labels: { ...options.labels },
        ttlMs,
        limits,
        network: options.network ?? false,
      },
      undefined,
      options.signal,
    );
  }

  async listImages(prefix: string): Promise<string[]> {
    return (await this.store.list()).map((r) => r.name).filter((n) => n.startsWith(prefix));
  }

  async removeImage(image: string): Promise<boolean> {
    const record = await this.store.remove(normalizeImageName(image));
    if (!record) return false;
    // Layers under a running sandbox stay (its overlay reads them); gc takes them later.
    await this.store.pruneLayers(await layersInUse(this.sandboxesDir), {
      candidates: record.layers,
      minAgeMs: 0,
    });
    return true;
  }

  async hasImage(image: string): Promise<boolean> {
    if (await this.store.getComplete(normalizeImageName(image))) return true;
    if (!this.config.importFromDocker) return false;
    const docker = await connectDocker();
    return docker
      ? docker
          .getImage(normalizeImageName(image))
          .inspect()
          .then(
            () => true,
            () => false,
          )
      : false;
  }

  private async resolveImage(image: string): Promise<ImageRecord> {
    const name = normalizeImageName(image);
    const local = await this.store.getComplete(name);
    if (local) return local;
    const docker = this.config.importFromDocker ? await connectDocker() : undefined;
    const imported = docker && (await exportFromDocker(docker, this.store, name, this.config.runId));
    if (imported) return imported;
    const base = findBaseImage(name);
    const remedy = base
      ? `run "sandgym images build ${image}"`
      : `pull it with docker ("docker pull ${image}"; sandgym copies it from there), or save it from a sandbox ` +
        'with snapshot()';
    throw new SandboxError(undefined, `image "${image}" not found locally; ${remedy}`);
  }

  private async start(
    spec: SandboxSpec,
    copyUpperFrom?: { path: string; uidBase: number },
    signal?: AbortSignal,
  ): Promise<LocalSandbox> {
    const hostNetwork = spec.network ? await this.network() : undefined;
    const id = randomBytes(6).toString('hex');
    const dir = join(this.sandboxesDir, id);
    // This directory holds meta.json and the sandbox's disk image; the sandbox's mounts (see
    // launch-init.ts) make their own directories on that image. 0700: the image holds what the sandbox
    // wrote (its secrets, its setuid files), which no other host user may read.
    mkdirSync(this.sandboxesDir, { recursive: true });
    mkdirSync(dir, { mode: 0o700 });
    const createdAtMs = Date.now();
    const labels = {
      ...spec.labels,
      [LABELS.run]: this.config.runId,
      [LABELS.createdAt]: String(createdAtMs),
      [LABELS.ttlMs]: String(spec.ttlMs),
    };
    const limitsHandle = this.limitDriver.sandbox(id);
    const meta: SandboxMeta = {
      id,
      image: spec.image,
      layers: [...spec.layers],
      labels,
      run: this.config.runId,
      createdAtMs,
      ttlMs: spec.ttlMs,
      limits: spec.limits,
      limitMechanism: this.limitDriver.mechanism,
      limitsEnforced: [],
    };
    writeMeta(dir, meta);
    try {
      meta.limitsEnforced = limitsHandle.apply(spec.limits);
      const launched = await launchInit({
        id,
        tools: this.config.tools,
        spawn: this.spawnHost,
        dir,
        layersDir: this.store.layersDir,
        layers: spec.layers,
        diskBytes: spec.limits.diskBytes,
        limits: limitsHandle.entry(),
        network: spec.network,
        ...(hostNetwork && { resolvConf: hostNetwork.resolvConf }),
        workdir: spec.workdir,
        ...(copyUpperFrom !== undefined && { copyUpperFrom }),
        ...(signal && { signal }),
      });
      meta.init = launched.init;
      meta.holder = { pid: launched.holder.pid!, startTicks: launched.holderTicks };
      writeMeta(dir, meta);
      if (hostNetwork) {
        try {
          meta.pasta = await connectSandbox(
            hostNetwork,
            this.spawnHost,
            this.config.tools.helper,
            id,
            dir,
            launched.init.pid,
          );
        } catch (e) {
          launched.holder.kill('SIGKILL');
          throw e;
        }
        writeMeta(dir, meta);
      }
      const sandbox = new LocalSandbox({
        ...spec,
        id,
        labels,
        dir,
        tools: this.config.tools,
        spawn: this.spawnHost,
        limitsHandle,
        launched,
        pasta: meta.pasta,
        owner: this,
      });
      this.open.add(sandbox);
      if (this.closed) {
        // The provider was closed while this one started: it must not outlive close().
        await sandbox.close();
        this.assertOpen();
      }
      return sandbox;
    } catch (e) {
      await limitsHandle.destroy().catch(() => {});
      await removeSandboxDir(dir).catch(() => {});
      throw e;
    }
  }

  async fork(parent: LocalSandbox, n: number): Promise<LocalSandbox[]> {
    const own = Object.fromEntries(
      Object.entries(parent.labels).filter(([k]) => !Object.values(LABELS).includes(k as never)),
    );
    const spec: SandboxSpec = {
      image: parent.image,
      layers: parent.layers,
      env: { ...parent.env },
      workdir: parent.workdir,
      labels: own,
      ttlMs: Number(parent.labels[LABELS.ttlMs]),
      limits: parent.limits,
      network: parent.network,
    };
    const results = await parent.whileFrozen(() =>
      Promise.allSettled(
        Array.from({ length: n }, () =>
          this.start(spec, { path: parent.upperPath, uidBase: parent.uidBase }),
        ),
      ),
    );
    const made = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (!failed) return made;
    await Promise.all(made.map((s) => s.close()));
    throw new SandboxError(parent.id, `fork(${n}) failed: ${(failed.reason as Error).message}`, {
      cause: failed.reason,
      isRetryable: true,
    });
  }

  async snapshot(parent: LocalSandbox, image: string): Promise<void> {
    const name = normalizeImageName(image);
    const dir = await this.store.newLayerDir(this.config.runId);
    try {
      await parent.whileFrozen(() =>
        runHostCommand('cp', ['-a', '--', `${parent.upperPath}/.`, `${dir}/rootfs/`]),
      );
      // The copy is owned by the sandbox's host range; a layer is owned by 0.. like every other, so any
      // later sandbox sees it through its own id-mapping.
      await runHostCommand(this.config.tools.helper, ['shift', `${dir}/rootfs`, String(parent.uidBase), '0']);
      await sanitizeLayer(join(dir, 'rootfs'));
      const key = recipeKey({
        snapshotOf: parent.id,
        layers: parent.layers,
        nonce: randomBytes(8).toString('hex'),
      });
      await this.store.commitLayer(dir, key, 'snapshot');
      const replaced = await this.store.get(name);
      await this.store.put({
        name,
        layers: [key, ...parent.layers],
        env: { ...parent.env },
        workdir: parent.workdir,
        createdAt: new Date().toISOString(),
        recipeKey: key,
        source: 'snapshot',
      });
      if (replaced) {
        const inUse = await layersInUse(this.sandboxesDir);
        await this.store.pruneLayers(inUse, { candidates: replaced.layers, minAgeMs: 0 });
      }
    } catch (e) {
      await this.store.discardLayerDir(dir);
      throw new SandboxError(parent.id, `snapshot to "${name}" failed: ${(e as Error).message}`, {
        cause: e,
      });
    }
  }

  release(sandbox: LocalSandbox): void {
    this.open.delete(sandbox);
    // Its failures (cgroups that stay busy) are left to gc, which finds the directory and its meta.json.
    const work = (async () => {
      await sandbox.limitsHandle.destroy();
      await removeSandboxDir(sandbox.dir);
    })().catch(() => {});
    this.releases.add(work);
    void work.finally(() => this.releases.delete(work));
  }

  /** Resolves once the cgroups and directories of every sandbox closed so far are removed. */
  async released(): Promise<void> {
    while (this.releases.size > 0) await Promise.all([...this.releases]);
  }

  gc(options: GcOptions = {}): Promise<GcReport> {
    return gcLocal(this, options);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.open].map((s) => s.close()));
    await this.released();
    this.forkServer?.close();
  }

  private assertOpen(): void {
    if (this.closed) throw new SandboxError(undefined, 'the local provider is closed; create a new one');
  }
}
