import { availableParallelism } from 'node:os';
import { ConfigError } from '../errors.ts';
import { resolveHome } from '../sandbox/images/index.ts';
import type { SandboxLimits, SandboxProvider } from '../sandbox/index.ts';
import type { AgsOptions } from './ags/control-plane.ts';
import type { KeyStore } from './api-keys.ts';
import { type HostCaps, hostCaps, readHostFacts } from './host-budget.ts';
import { DEFAULT_TEMPLATES } from './new-sandbox.ts';

const GiB = 1024 ** 3;

export interface SandboxServerOptions {
  /** Where the sandboxes run (local or docker); the server closes what it made, not the provider. */
  provider: SandboxProvider;
  keys: KeyStore;
  /** Default 127.0.0.1: put a TLS proxy in front before exposing it. */
  host?: string;
  /** Default 0: any free port (see `SandboxServer.url`). */
  port?: number;
  /** Domain of `<port>-<sandbox id>.<domain>` hosts; when set, only such hosts route to sandboxes. */
  domain?: string | undefined;
  /** Sandboxes one key may hold at once. Default 20. */
  maxSandboxesPerKey?: number;
  /** Creates (and forks) per second per key. Default 10. */
  createsPerSecondPerKey?: number;
  /** The longest timeout (lifetime) a sandbox may be given, in seconds. Default 24 h. */
  maxTimeoutS?: number;
  /** Upper bounds of the limits a client may ask (sandgym.limit.* metadata). */
  maxLimits?: Partial<Omit<SandboxLimits, 'outputBytes'>>;
  /** Template names that stand for images, over the default `base` = sandgym/base. */
  templates?: Record<string, string>;
  /** Let clients ask for network access (allow_internet_access). Default false. */
  allowNetwork?: boolean;
  /**
   * Host-wide caps over all keys together (sandboxes, and the sums of their memory, process and disk
   * limits); each defaults to what this host can hold (see host-budget.ts).
   */
  hostCaps?: Partial<HostCaps>;
  /** Largest JSON or RPC request body. Default 1 MiB. */
  maxJsonBytes?: number;
  /** Largest file upload (decoded). Default 1 GiB. */
  maxUploadBytes?: number;
  /** A client must send its request headers within this. Default 10 s. */
  headersTimeoutMs?: number;
  /** A client must send its whole request (uploads too) within this. Default 10 min. */
  requestTimeoutMs?: number;
  /** An idle keep-alive connection closes after this. Default 5 s. */
  keepAliveTimeoutMs?: number;
  /** A connection with no traffic either way closes after this. Default 2 min (keepalives are more often). */
  idleTimeoutMs?: number;
  /** Also answer Tencent Cloud's AgentSandbox API (tools, instances) with these keys and tools. */
  ags?: AgsOptions;
  /** One line per notable event (sandbox created, killed, expired; server errors). */
  log?: (line: string) => void;
}

export type ServerSettings = Required<
  Omit<SandboxServerOptions, 'domain' | 'maxLimits' | 'hostCaps' | 'ags'>
> & {
  domain: string | undefined;
  maxLimits: Omit<SandboxLimits, 'outputBytes'>;
  hostCaps: HostCaps;
};

export function resolveServerOptions(o: SandboxServerOptions): ServerSettings {
  const s: ServerSettings = {
    provider: o.provider,
    keys: o.keys,
    host: o.host ?? '127.0.0.1',
    port: o.port ?? 0,
    domain: o.domain,
    maxSandboxesPerKey: o.maxSandboxesPerKey ?? 20,
    createsPerSecondPerKey: o.createsPerSecondPerKey ?? 10,
    maxTimeoutS: o.maxTimeoutS ?? 86_400,
    maxLimits: {
      memoryBytes: 16 * GiB,
      pids: 4096,
      cpus: availableParallelism(),
      diskBytes: 64 * GiB,
      ...o.maxLimits,
    },
    templates: { ...DEFAULT_TEMPLATES, ...o.templates },
    hostCaps: { ...hostCaps(readHostFacts(resolveHome())), ...o.hostCaps },
    allowNetwork: o.allowNetwork ?? false,
    maxJsonBytes: o.maxJsonBytes ?? 1024 * 1024,
    maxUploadBytes: o.maxUploadBytes ?? GiB,
    headersTimeoutMs: o.headersTimeoutMs ?? 10_000,
    requestTimeoutMs: o.requestTimeoutMs ?? 600_000,
    keepAliveTimeoutMs: o.keepAliveTimeoutMs ?? 5_000,
    idleTimeoutMs: o.idleTimeoutMs ?? 120_000,
    log: o.log ?? (() => {}),
  };
  for (const key of [
    'maxSandboxesPerKey',
    'maxTimeoutS',
    'maxJsonBytes',
    'maxUploadBytes',
    'headersTimeoutMs',
    'requestTimeoutMs',
    'keepAliveTimeoutMs',
    'idleTimeoutMs',
  ] as const) {
    if (!Number.isSafeInteger(s[key]) || s[key] <= 0) {
      throw new ConfigError(`sandgym serve: ${key} must be a positive integer, got ${s[key]}`);
    }
  }
  for (const [key, value] of Object.entries(s.hostCaps)) {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new ConfigError(`sandgym serve: hostCaps.${key} must be a positive integer, got ${value}`);
    }
  }
  if (!(s.createsPerSecondPerKey > 0)) {
    throw new ConfigError(
      `sandgym serve: createsPerSecondPerKey must be positive, got ${s.createsPerSecondPerKey}`,
    );
  }
  if (!Number.isInteger(s.port) || s.port < 0 || s.port > 65535) {
    throw new ConfigError(`sandgym serve: port must be 0 to 65535, got ${s.port}`);
  }
  return s;
}
