import { randomBytes } from 'node:crypto';
import { errorMessage, isConfigError } from '../errors.ts';
import { normalizeImageName } from '../sandbox/images/index.ts';
import type { Sandbox } from '../sandbox/index.ts';
import type { ApiKeyRecord } from './api-keys.ts';
import { sandboxNeeds } from './host-budget.ts';
import { HttpError } from './http-io.ts';
import { SNAPSHOT_PREFIX, timeoutSeconds } from './new-sandbox.ts';
import { sandboxJson } from './sandbox-json.ts';
import type { ServedSandbox } from './sandbox-registry.ts';
import { type ServerContext, serve } from './server-context.ts';

const FORK_DEFAULT_TIMEOUT_S = 15;
const MAX_FORKS = 100;

/**
 * POST /sandboxes/{id}/fork on the provider's fork(n): `count` new sandboxes from the parent's current
 * filesystem, each with the parent's template, metadata and environment. The provider forks all or
 * none, so a failure is reported on every entry (E2B answers one result per fork).
 */
export async function forkSandbox(
  ctx: ServerContext,
  key: ApiKeyRecord,
  parent: ServedSandbox,
  body: Record<string, unknown>,
) {
  const count = body.count ?? 1;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > MAX_FORKS) {
    throw new HttpError(400, `count must be an integer from 1 to ${MAX_FORKS}`);
  }
  const timeoutS = timeoutSeconds(body.timeout, ctx.settings.maxTimeoutS, FORK_DEFAULT_TIMEOUT_S);
  const refusal = ctx.quotas.acquire(key.id, count);
  if (refusal) throw new HttpError(429, refusal.message, { 'Retry-After': String(refusal.retryAfterS) });
  const needs = sandboxNeeds(parent.sandbox.limits);
  const full = ctx.budget.acquire(needs, count);
  if (full) {
    ctx.quotas.release(key.id, count);
    throw new HttpError(429, full.message, { 'Retry-After': String(full.retryAfterS) });
  }
  let forks: Sandbox[];
  try {
    forks = await parent.sandbox.fork(count);
  } catch (e) {
    ctx.quotas.release(key.id, count);
    ctx.budget.release(needs, count);
    const error = { code: 500, message: `fork failed: ${errorMessage(e)}` };
    return Array.from({ length: count }, () => ({ error }));
  }
  for (const fork of forks) ctx.budget.hold(fork.id, needs);
  return forks.map((sandbox) => ({
    sandbox: sandboxJson(
      serve(ctx, key, sandbox, {
        templateID: parent.templateID,
        timeoutS,
        metadata: { ...parent.metadata },
        envVars: { ...parent.envVars },
        network: parent.network,
      }),
      ctx.settings.domain,
    ),
  }));
}

/**
 * POST /sandboxes/{id}/snapshots on the provider's snapshot(image): the image is
 * `sandgym-serve/<key id>/<name>`, a template only this key can start. Without a name, one is made up.
 */
export async function snapshotSandbox(
  ctx: ServerContext,
  key: ApiKeyRecord,
  parent: ServedSandbox,
  body: Record<string, unknown>,
) {
  if (body.name !== undefined && typeof body.name !== 'string')
    throw new HttpError(400, 'name must be a string');
  const name = body.name ? snapshotName(body.name) : `snapshot-${randomBytes(6).toString('hex')}`;
  let image: string;
  try {
    image = normalizeImageName(`${SNAPSHOT_PREFIX}/${key.id}/${name}`);
  } catch (e) {
    throw isConfigError(e) ? new HttpError(400, e.message) : e;
  }
  try {
    await parent.sandbox.snapshot(image);
  } catch (e) {
    throw new HttpError(500, `cannot snapshot sandbox ${parent.id}: ${errorMessage(e)}`);
  }
  ctx.snapshotSources.set(image, parent.id);
  return { snapshotID: image, names: [image] };
}

/** A snapshot name as one image path component: lowercase letters, digits, `.`, `_`, `-`. */
function snapshotName(name: string): string {
  const cleaned = name
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '')
    .slice(0, 100);
  if (!cleaned) throw new HttpError(400, `snapshot name "${name}" has no letters or digits`);
  return cleaned;
}
