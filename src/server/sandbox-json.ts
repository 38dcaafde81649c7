import type { ServedSandbox } from './sandbox-registry.ts';

/**
 * The envd version the server claims. The SDKs turn features on by it: 0.3.0 the stdin flag, 0.4.0 no
 * default user, 0.5.2 CloseStdin, 0.5.7 raw (octet-stream) uploads. All of those are served; file
 * metadata (0.6.2) and watchers are not.
 */
export const ENVD_VERSION = '0.5.7';
const MiB = 1024 * 1024;

/** E2B `Sandbox`: the answer to create, connect and fork. */
export function sandboxJson(s: ServedSandbox, domain: string | undefined) {
  return {
    templateID: s.templateID,
    sandboxID: s.id,
    clientID: 'sandgym-serve',
    envdVersion: ENVD_VERSION,
    envdAccessToken: s.envdAccessToken,
    trafficAccessToken: null,
    domain: domain ?? null,
  };
}

/** E2B `ListedSandbox`. */
export function listedSandboxJson(s: ServedSandbox) {
  const limits = s.sandbox.limits;
  return {
    templateID: s.templateID,
    sandboxID: s.id,
    clientID: 'sandgym-serve',
    startedAt: new Date(s.startedAtMs).toISOString(),
    endAt: new Date(s.endAtMs).toISOString(),
    cpuCount: Math.max(1, Math.ceil(limits.cpus)),
    memoryMB: Math.round(limits.memoryBytes / MiB),
    diskSizeMB: Math.round(limits.diskBytes / MiB),
    metadata: s.metadata,
    state: sandboxState(s),
    envdVersion: ENVD_VERSION,
  };
}

export function sandboxState(s: ServedSandbox): 'running' | 'paused' {
  return s.pausedRemainingMs === undefined ? 'running' : 'paused';
}

/** E2B `SandboxDetail`. */
export function sandboxDetailJson(s: ServedSandbox, domain: string | undefined) {
  return {
    ...listedSandboxJson(s),
    envdAccessToken: s.envdAccessToken,
    allowInternetAccess: s.network,
    domain: domain ?? null,
  };
}
