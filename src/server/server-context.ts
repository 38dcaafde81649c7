import { randomBytes } from 'node:crypto';
import type { Sandbox } from '../sandbox/index.ts';
import type { ApiKeyRecord } from './api-keys.ts';
import type { HostBudget } from './host-budget.ts';
import type { Quotas } from './quota.ts';
import type { SandboxRegistry, ServedSandbox } from './sandbox-registry.ts';
import type { ServerSettings } from './server-options.ts';

/** What the request handlers share: settings, the sandboxes held, and the per-key quotas. */
export interface ServerContext {
  settings: ServerSettings;
  registry: SandboxRegistry;
  quotas: Quotas;
  /** The host-wide caps, over all keys. */
  budget: HostBudget;
  /** The sandbox each snapshot made since the server started came from (GET /snapshots?sandboxID=). */
  snapshotSources: Map<string, string>;
}

/** The label naming the key a sandbox was made for, on the provider's side (for `gc` and debugging). */
export const KEY_LABEL = 'sandgym.serve.key';

/** Registers a new sandbox of `key`, ending `timeoutS` from now, with a fresh envd access token. */
export function serve(
  ctx: ServerContext,
  key: ApiKeyRecord,
  sandbox: Sandbox,
  o: {
    templateID: string;
    timeoutS: number;
    metadata: Record<string, string>;
    envVars: Record<string, string>;
    network: boolean;
  },
): ServedSandbox {
  const now = Date.now();
  const served = ctx.registry.add({
    id: sandbox.id,
    keyId: key.id,
    sandbox,
    templateID: o.templateID,
    metadata: o.metadata,
    envVars: o.envVars,
    network: o.network,
    startedAtMs: now,
    endAtMs: now + o.timeoutS * 1000,
    envdAccessToken: randomBytes(24).toString('base64url'),
  });
  ctx.settings.log(
    `sandbox ${served.id} started for key ${key.id} (${o.templateID}), ends in ${o.timeoutS} s`,
  );
  return served;
}
