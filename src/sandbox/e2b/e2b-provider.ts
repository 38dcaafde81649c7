import { posix } from 'node:path';
import { ConfigError, SandboxError } from '../../errors.ts';
import { isOrphan } from '../owner.ts';
import {
  type CreateSandboxOptions,
  type GcOptions,
  type GcReport,
  LABELS,
  type SandboxLimits,
  type SandboxProvider,
} from '../types.ts';
import { type CreatedSandbox, E2BApiClient } from './api-client.ts';
import type { E2BOptions } from './e2b-options.ts';
import { E2BSandbox, type E2BSandboxOwner } from './e2b-sandbox.ts';
import { EnvdClient } from './envd-client.ts';
import { HttpTransport } from './http-transport.ts';
import { limitsToMetadata, resolveLimits } from './limit-metadata.ts';
import { ENVD_PORT } from './process-messages.ts';
import type { TemplateMap } from './template-map.ts';

export const DEFAULT_TTL_MS = 3_600_000;

export interface E2BProviderConfig {
  options: E2BOptions;
  runId: string;
  templates: TemplateMap;
}

/** What a sandbox keeps of its creation, so that forks start alike. */
interface SandboxSpec {
  image: string;
  template: string;
  labels: Record<string, string>;
  limits: SandboxLimits;
  workdir: string | undefined;
  ttlMs: number;
}

/**
 * The `e2b` provider: sandboxes on any server of the E2B protocol (E2B, Tencent AgentSandbox, other
 * compatible clouds, `sandgym serve`). Each sandbox carries its labels as metadata, so `gc` finds the
 * orphans of dead runs through the list call. Holds the sandboxes it made, so `close()` can end them.
 */
export class E2BProvider implements SandboxProvider, E2BSandboxOwner {
  readonly name = 'e2b';
  private readonly transport = new HttpTransport();
  private readonly api: E2BApiClient;
  private readonly open = new Set<E2BSandbox>();
  private closed = false;

  constructor(private readonly config: E2BProviderConfig) {
    this.api = new E2BApiClient({
      apiUrl: config.options.apiUrl,
      apiKey: config.options.apiKey,
      domain: config.options.domain,
      requestTimeoutMs: config.options.requestTimeoutMs,
      transport: this.transport,
    });
  }

  async create(options: CreateSandboxOptions): Promise<E2BSandbox> {
    options.signal?.throwIfAborted();
    this.assertOpen();
    const spec = this.specOf(options);
    const metadata = { ...spec.labels, ...limitsToMetadata(spec.limits) };
    const created = await this.api.create(
      {
        templateID: spec.template,
        timeout: Math.ceil(spec.ttlMs / 1000),
        metadata,
        envVars: { ...options.env },
        allow_internet_access: options.network ?? false,
        secure: true,
      },
      { image: spec.image, timeoutMs: this.config.options.createTimeoutMs, signal: options.signal },
    );
    const sandbox = this.adopt(created, spec);
    if (this.closed) {
      await sandbox.close();
      this.assertOpen();
    }
    if (spec.workdir !== undefined) {
      // Like Docker's WORKDIR: the default directory of commands exists from the start.
      const made = await sandbox
        .exec(['mkdir', '-p', '--', spec.workdir], { timeoutMs: 60_000 })
        .catch((e) => e);
      if (made instanceof Error || made.exitCode !== 0) {
        await sandbox.close().catch(() => {});
        const why = made instanceof Error ? made.message : made.stderr.trim();
        throw new SandboxError(sandbox.id, `cannot create workdir ${spec.workdir}: ${why}`);
      }
    }
    return sandbox;
  }

  /** Checks every option before anything is created; labels get the owner run, creation time and TTL. */
  private specOf(options: CreateSandboxOptions): SandboxSpec {
    const limits = resolveLimits(options.limits);
    const ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0) {
      throw new ConfigError(`invalid sandbox ttlMs ${ttlMs}: expected a positive integer of milliseconds`);
    }
    if (options.workdir !== undefined && !posix.isAbsolute(options.workdir)) {
      throw new ConfigError(`invalid sandbox workdir "${options.workdir}": expected an absolute path`);
    }
    for (const [kind, record] of [
      ['environment variable', options.env],
      ['label', options.labels],
    ] as const) {
      for (const [k, v] of Object.entries(record ?? {})) {
        if (!k || typeof v !== 'string' || v.includes('\0') || (kind !== 'label' && k.includes('='))) {
          throw new ConfigError(`invalid sandbox ${kind} ${JSON.stringify(k)}: names and values are strings`);
        }
      }
    }
    return {
      image: options.image,
      template: this.config.templates.templateFor(options.image),
      labels: {
        ...options.labels,
        [LABELS.run]: this.config.runId,
        [LABELS.createdAt]: String(Date.now()),
        [LABELS.ttlMs]: String(ttlMs),
      },
      limits,
      workdir: options.workdir,
      ttlMs,
    };
  }

  private adopt(created: CreatedSandbox, spec: SandboxSpec): E2BSandbox {
    if (typeof created?.sandboxID !== 'string' || !/^[A-Za-z0-9_-]+$/.test(created.sandboxID)) {
      throw new SandboxError(
        undefined,
        `the server returned no usable sandboxID: ${JSON.stringify(created)}`,
      );
    }
    const o = this.config.options;
    const envdUrl = o.sandboxUrl ?? `https://${ENVD_PORT}-${created.sandboxID}.${created.domain || o.domain}`;
    const sandbox = new E2BSandbox({
      ...spec,
      id: created.sandboxID,
      api: this.api,
      envd: new EnvdClient({
        sandboxId: created.sandboxID,
        baseUrl: envdUrl,
        accessToken: created.envdAccessToken,
        transport: this.transport,
        requestTimeoutMs: o.requestTimeoutMs,
        streamIdleTimeoutMs: o.streamIdleTimeoutMs,
      }),
      envdUrl,
      streamIdleTimeoutMs: o.streamIdleTimeoutMs,
      owner: this,
    });
    this.open.add(sandbox);
    return sandbox;
  }

  async hasImage(image: string): Promise<boolean> {
    const templates = this.config.templates;
    return templates.has(image) || this.api.templateExists(templates.templateFor(image));
  }

  /** E2B forks carry the parent's memory and metadata; one failed fork fails the call, leaving none. */
  async fork(parent: E2BSandbox, n: number): Promise<E2BSandbox[]> {
    const results = await this.api.fork(parent.id, n, Math.ceil(parent.ttlMs / 1000));
    const spec: SandboxSpec = { ...parent, labels: { ...parent.labels }, limits: { ...parent.limits } };
    const made = results.flatMap((r) => (r.sandbox ? [this.adopt(r.sandbox, spec)] : []));
    if (made.length === n && results.length === n) return made;
    await Promise.all(made.map((s) => s.close().catch(() => {})));
    const why = results.flatMap((r) => (r.error ? [`${r.error.code}: ${r.error.message}`] : []));
    throw new SandboxError(
      parent.id,
      `fork(${n}) failed: ${why.join('; ') || `got ${results.length} results`}`,
      {
        isRetryable: true,
      },
    );
  }

  /** A server snapshot named after `image`; later creates of `image` start from it. */
  async snapshot(parent: E2BSandbox, image: string): Promise<void> {
    const name = image
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, '-')
      .replace(/^-+|-+$/g, '');
    if (!name) throw new ConfigError(`cannot name a snapshot after image "${image}"`);
    const info = await this.api.snapshot(parent.id, name);
    this.config.templates.set(image, info.snapshotID);
  }

  forget(sandbox: E2BSandbox): void {
    this.open.delete(sandbox);
  }

  /** Kills the sandgym sandboxes the server lists for this key whose owner is dead or TTL passed. */
  async gc(options: GcOptions = {}): Promise<GcReport> {
    const report: GcReport = { provider: this.name, removed: [], kept: 0 };
    for (const listed of await this.api.list()) {
      const m = listed.metadata ?? {};
      const run = m[LABELS.run];
      if (run === undefined) continue;
      const orphan =
        options.all === true ||
        isOrphan({ run, createdAtMs: numberOr(m[LABELS.createdAt]), ttlMs: numberOr(m[LABELS.ttlMs]) });
      if (!orphan) {
        report.kept++;
        continue;
      }
      await this.api.kill(listed.sandboxID);
      report.removed.push(listed.sandboxID);
    }
    return report;
  }

  async close(): Promise<void> {
    this.closed = true;
    try {
      await Promise.all([...this.open].map((s) => s.close()));
    } finally {
      this.transport.close();
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new SandboxError(undefined, 'the e2b provider is closed; create a new one');
  }
}

function numberOr(text: string | undefined): number | undefined {
  const n = Number(text);
  return text !== undefined && Number.isFinite(n) ? n : undefined;
}
