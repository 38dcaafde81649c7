import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ENVD_PORT, isRpcError } from '../sandbox/e2b/index.ts';
import type { Sandbox } from '../sandbox/index.ts';
import {
  isStreamingRequest,
  readStreamRequest,
  readUnaryRequest,
  sendRpcError,
  sendStreamError,
  sendUnary,
  UnsupportedMediaType,
} from './connect-server.ts';
import { requestUser, sandboxAccount, sandboxAs } from './envd-user.ts';
import { getFile, postFiles } from './files-routes.ts';
import { filesystemCall } from './filesystem-service.ts';
import { HttpError, headerValue, sendEmpty, sendJson } from './http-io.ts';
import { proxyToPort } from './port-proxy.ts';
import { keepaliveMs, processCall } from './process-service.ts';
import type { ServedSandbox } from './sandbox-registry.ts';
import type { ServerContext } from './server-context.ts';
import { isSignedFileUrl, signedFileSandbox } from './signed-url.ts';
import { watchDir } from './watch-dir.ts';

/** Which sandbox (and port in it) a request is for, from E2B's routing headers or host name. */
export interface SandboxTarget {
  sandboxId: string;
  port: number;
}

const ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * The sandbox a request is routed to: the E2b-Sandbox-Id/E2b-Sandbox-Port headers, or a host
 * `<port>-<id>.<domain>` (with `domain` set, only hosts under it). Undefined for lifecycle calls.
 */
export function sandboxTarget(req: IncomingMessage, domain: string | undefined): SandboxTarget | undefined {
  const id = headerValue(req, 'e2b-sandbox-id');
  if (id !== undefined) {
    const port = headerValue(req, 'e2b-sandbox-port') ?? String(ENVD_PORT);
    if (!ID.test(id) || !/^\d{1,5}$/.test(port))
      throw new HttpError(400, 'malformed E2b-Sandbox-Id or E2b-Sandbox-Port header');
    return { sandboxId: id, port: Number(port) };
  }
  const host = (headerValue(req, 'host') ?? '').replace(/:\d+$/, '').toLowerCase();
  const m = /^(\d{1,5})-([a-z0-9_-]{1,128})\.(.+)$/.exec(host);
  if (!m || (domain !== undefined && m[3] !== domain.toLowerCase())) return undefined;
  return { sandboxId: m[2]!, port: Number(m[1]) };
}

/**
 * The envd plane of one sandbox: /health, /envs, /files and the Connect services. A request must carry
 * the sandbox's access token (X-Access-Token), which only the key that created it was given, or be a
 * /files URL signed with it (see signed-url.ts); a request for another port goes to that port inside
 * the sandbox (port-proxy.ts), with the same token; a sandbox
 * that is gone answers 502 as E2B's proxy does, a port other than envd's likewise.
 */
export async function envdRoute(
  ctx: ServerContext,
  target: SandboxTarget,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const served = ctx.registry.get(target.sandboxId);
  if (!served) throw new HttpError(502, `sandbox '${target.sandboxId}' not found: it expired or was killed`);
  if (served.pausedRemainingMs !== undefined) {
    throw new HttpError(
      502,
      `sandbox '${served.id}' is paused: connect to it (Sandbox.connect) to resume it`,
    );
  }
  const method = req.method ?? 'GET';
  if (target.port === ENVD_PORT && isSignedFileUrl(url)) signedFileSandbox(url, method, [served]);
  else if (!tokenMatches(headerValue(req, 'x-access-token'), served.envdAccessToken)) {
    throw new HttpError(401, `missing or wrong X-Access-Token for sandbox '${served.id}'`);
  }
  // Any other port is a service in the sandbox (getHost): the same token, forwarded inside.
  if (target.port !== ENVD_PORT) return proxyToPort(served.sandbox, target.port, req, res);
  const path = url.pathname;
  if (path === '/health' && method === 'GET') return sendEmpty(res, 204);
  if (path === '/envs' && method === 'GET') return sendJson(res, 200, served.envVars);
  if (path === '/files' && (method === 'GET' || method === 'POST')) {
    const sandbox = await fileSandbox(served, req, url);
    if (method === 'GET') return getFile(sandbox, req, res, url);
    return postFiles(sandbox, req, res, url, ctx.settings.maxUploadBytes);
  }
  const rpc = /^\/(process\.Process|filesystem\.Filesystem)\/([A-Za-z]+)$/.exec(path);
  if (!rpc) throw new HttpError(404, `no such envd endpoint: ${method} ${path}`);
  if (method !== 'POST') throw new HttpError(405, `${rpc[1]}/${rpc[2]} takes POST`, { Allow: 'POST' });
  try {
    await rpcCall(ctx, served, rpc[1]!, rpc[2]!, req, res);
  } catch (e) {
    if (!isRpcError(e)) throw e;
    if (isStreamingRequest(req) && !(e instanceof UnsupportedMediaType)) sendStreamError(res, e);
    else sendRpcError(res, e);
  }
}

async function rpcCall(
  ctx: ServerContext,
  served: ServedSandbox,
  service: string,
  method: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  if (service === 'process.Process') return processCall(served, method, req, res, ctx.settings.maxJsonBytes);
  if (method === 'WatchDir') {
    const message = await readStreamRequest(req, ctx.settings.maxJsonBytes);
    return watchDir(await fileSandbox(served, req), message, res, keepaliveMs(req));
  }
  const message = await readUnaryRequest(req, ctx.settings.maxJsonBytes);
  sendUnary(res, await filesystemCall(await fileSandbox(served, req), method, message));
}

/** Compares tokens in constant time (hashes first: lengths differ). */
function tokenMatches(presented: string | undefined, expected: string): boolean {
  if (!presented) return false;
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** The sandbox as the user a file call names (root, the default, is the sandbox itself). */
async function fileSandbox(served: ServedSandbox, req: IncomingMessage, url?: URL): Promise<Sandbox> {
  let user: string | undefined;
  try {
    user = requestUser(req, url);
    if (user === undefined || user === 'root') return served.sandbox;
    return sandboxAs(served.sandbox, await sandboxAccount(served.sandbox, user));
  } catch (e) {
    // /files is REST: its errors are HTTP statuses, the RPCs' are Connect codes.
    if (url && isRpcError(e)) throw new HttpError(400, e.message);
    throw e;
  }
}
