import type { IncomingMessage, ServerResponse } from 'node:http';
import { isConfigError, isSandboxError } from '../errors.ts';
import type { Sandbox } from '../sandbox/index.ts';
import type { ApiKeyRecord } from './api-keys.ts';
import { sandboxNeeds } from './host-budget.ts';
import { HttpError, headerValue, readJsonObject, sendEmpty, sendJson } from './http-io.ts';
import { type NewSandboxSpec, parseNewSandbox, templateImage, timeoutSeconds } from './new-sandbox.ts';
import { forkSandbox, snapshotSandbox } from './sandbox-copies.ts';
import { sandboxDetailJson, sandboxJson } from './sandbox-json.ts';
import { listSandboxes } from './sandbox-listing.ts';
import { sandboxMetrics } from './sandbox-metrics.ts';
import type { ServedSandbox } from './sandbox-registry.ts';
import { KEY_LABEL, type ServerContext, serve } from './server-context.ts';
import { deleteSnapshot, listSnapshots } from './snapshot-routes.ts';

/**
 * The E2B lifecycle API (spec/openapi.yml of e2b-dev/E2B) over the provider: create, list, get, kill,
 * timeout, connect, fork, snapshots (make, list, delete), templates. Every call but /health needs an X-API-Key, and a key
 * sees only its own sandboxes: another key's sandbox is "not found", exactly like a missing one.
 */
export async function lifecycleRoute(
  ctx: ServerContext,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const path = segments(url.pathname);
  const method = req.method ?? 'GET';
  if (path.join('/') === 'health') return allow(method, ['GET'], () => sendEmpty(res, 204));
  const key = await authenticate(ctx, req);
  const [first, ...rest] = path[0] === 'v2' ? path.slice(1) : path;
  if (first === 'templates' && rest.length === 1) {
    return allow(method, ['GET', 'DELETE'], async () => {
      if (method === 'GET') return template(ctx, key, rest[0]!, res);
      await deleteSnapshot(ctx, key, rest[0]!);
      sendEmpty(res, 204);
    });
  }
  if (first === 'snapshots' && rest.length === 0)
    return allow(method, ['GET'], async () => sendJson(res, 200, await listSnapshots(ctx, key, url)));
  if (first !== 'sandboxes') throw new HttpError(404, `no such endpoint: ${method} ${url.pathname}`);
  const [id, action, ...extra] = rest;
  if (id === undefined) {
    return allow(method, ['GET', 'POST'], () => {
      if (method === 'POST') return create(ctx, key, req, res);
      const { items, nextToken } = listSandboxes(ctx, key, url);
      sendJson(res, 200, items, nextToken ? { 'X-Next-Token': nextToken } : {});
    });
  }
  const served = owned(ctx, key, id);
  if (action === undefined) {
    return allow(method, ['GET', 'DELETE'], async () => {
      if (method === 'GET') return sendJson(res, 200, sandboxDetailJson(served, ctx.settings.domain));
      await ctx.registry.kill(served.id);
      sendEmpty(res, 204);
    });
  }
  if (extra.length > 0) throw new HttpError(404, `no such endpoint: ${method} ${url.pathname}`);
  const body = () => readJsonObject(req, ctx.settings.maxJsonBytes);
  switch (action) {
    case 'timeout':
      return allow(method, ['POST'], async () => {
        const b = await body();
        if (b.timeout === undefined) throw new HttpError(400, 'timeout is required');
        ctx.registry.setEnd(
          served.id,
          Date.now() + timeoutSeconds(b.timeout, ctx.settings.maxTimeoutS, 0) * 1000,
        );
        sendEmpty(res, 204);
      });
    case 'connect':
    case 'resume':
      return allow(method, ['POST'], async () => {
        const timeoutS = timeoutSeconds((await body()).timeout, ctx.settings.maxTimeoutS, 0);
        if (served.pausedRemainingMs !== undefined) {
          await resumeSandbox(served);
          ctx.registry.resumed(served.id, timeoutS * 1000);
        } else if (action === 'resume') {
          throw new HttpError(409, `sandbox '${served.id}' is not paused`);
        } else {
          ctx.registry.setEnd(served.id, Math.max(served.endAtMs, Date.now() + timeoutS * 1000));
        }
        sendJson(res, action === 'resume' ? 201 : 200, sandboxJson(served, ctx.settings.domain));
      });
    case 'pause':
      return allow(method, ['POST'], async () => {
        if (served.pausedRemainingMs !== undefined) {
          throw new HttpError(409, `sandbox '${served.id}' is already paused`);
        }
        if (!served.sandbox.pause) {
          throw new HttpError(501, `the ${served.sandbox.provider} provider cannot pause sandboxes`);
        }
        try {
          await served.sandbox.pause();
        } catch (e) {
          throw new HttpError(
            isSandboxError(e) && !e.isRetryable ? 501 : 500,
            `cannot pause: ${(e as Error).message}`,
          );
        }
        ctx.registry.paused(served.id, ctx.settings.maxTimeoutS * 1000);
        sendEmpty(res, 204);
      });
    case 'fork':
      return allow(method, ['POST'], async () =>
        sendJson(res, 201, await forkSandbox(ctx, key, served, await body())),
      );
    case 'snapshots':
      return allow(method, ['POST'], async () =>
        sendJson(res, 201, await snapshotSandbox(ctx, key, served, await body())),
      );
    case 'metrics':
      return allow(method, ['GET'], async () => sendJson(res, 200, await sandboxMetrics(served.sandbox)));
    case 'refreshes':
    case 'network':
    case 'logs':
      throw new HttpError(501, `${action} is not supported by sandgym serve`);
    default:
      throw new HttpError(404, `no such endpoint: ${method} ${url.pathname}`);
  }
}

async function create(ctx: ServerContext, key: ApiKeyRecord, req: IncomingMessage, res: ServerResponse) {
  const spec = parseNewSandbox(await readJsonObject(req, ctx.settings.maxJsonBytes), key.id, ctx.settings);
  const refusal = ctx.quotas.acquire(key.id);
  if (refusal) throw new HttpError(429, refusal.message, { 'Retry-After': String(refusal.retryAfterS) });
  const needs = sandboxNeeds(spec.limits);
  const full = ctx.budget.acquire(needs);
  if (full) {
    ctx.quotas.release(key.id);
    throw new HttpError(429, full.message, { 'Retry-After': String(full.retryAfterS) });
  }
  let sandbox: Sandbox;
  try {
    sandbox = await ctx.settings.provider.create({
      image: spec.image,
      labels: { [KEY_LABEL]: key.id },
      // The server ends the sandbox at its timeout; the provider's own TTL only backs that up.
      ttlMs: ctx.settings.maxTimeoutS * 1000,
      limits: spec.limits,
      network: spec.network,
      env: spec.envVars,
    });
  } catch (e) {
    ctx.quotas.release(key.id);
    ctx.budget.release(needs);
    throw await createFailure(ctx, e, spec);
  }
  ctx.budget.hold(sandbox.id, needs);
  sendJson(res, 201, sandboxJson(serve(ctx, key, sandbox, spec), ctx.settings.domain));
}

async function createFailure(ctx: ServerContext, e: unknown, spec: NewSandboxSpec): Promise<unknown> {
  if (isConfigError(e)) return new HttpError(400, e.message);
  if (!isSandboxError(e)) return e;
  const exists = await ctx.settings.provider.hasImage(spec.image).catch(() => true);
  if (!exists) {
    return new HttpError(
      404,
      `template '${spec.templateID}' not found: this server has no image "${spec.image}"`,
    );
  }
  return new HttpError(
    e.isRetryable ? 503 : 500,
    `cannot create a sandbox from '${spec.templateID}': ${e.message}`,
  );
}

async function template(ctx: ServerContext, key: ApiKeyRecord, templateID: string, res: ServerResponse) {
  const image = templateImage(templateID, key.id, ctx.settings.templates);
  if (!(await ctx.settings.provider.hasImage(image)))
    throw new HttpError(404, `template '${templateID}' not found`);
  sendJson(res, 200, { templateID, public: false, aliases: [], builds: [] });
}

async function authenticate(ctx: ServerContext, req: IncomingMessage): Promise<ApiKeyRecord> {
  const presented = headerValue(req, 'x-api-key');
  if (!presented) {
    throw new HttpError(401, 'missing X-API-Key header: send a key made by "sandgym serve --add-key"');
  }
  const key = await ctx.settings.keys.lookup(presented);
  if (!key) throw new HttpError(401, 'invalid API key');
  return key;
}

function owned(ctx: ServerContext, key: ApiKeyRecord, id: string): ServedSandbox {
  const served = ctx.registry.get(id);
  if (!served || served.keyId !== key.id) {
    throw new HttpError(404, `sandbox '${id}' not found: it expired, was killed, or never was`);
  }
  return served;
}

async function allow(method: string, allowed: string[], handle: () => unknown): Promise<void> {
  if (!allowed.includes(method)) {
    throw new HttpError(405, `method ${method} not allowed here`, { Allow: allowed.join(', ') });
  }
  await handle();
}

function segments(pathname: string): string[] {
  try {
    return pathname.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    throw new HttpError(400, `malformed URL path: ${pathname}`);
  }
}

async function resumeSandbox(served: ServedSandbox): Promise<void> {
  try {
    await served.sandbox.resume?.();
  } catch (e) {
    throw new HttpError(500, `cannot resume sandbox '${served.id}': ${(e as Error).message}`);
  }
}
