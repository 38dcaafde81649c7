import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Trajectory } from '../agent/types.ts';
import {
  type EpisodeFilter,
  episodePage,
  episodeRow,
  episodeSets,
  findRunDirs,
  heldOut,
  NotFound,
  readMetrics,
  readTrajectories,
  runId,
  runInfo,
  summarizeSteps,
} from './run-dir.ts';

export interface UiServerOptions {
  runsDir: string;
  host: string;
  port: number;
}

export interface UiServer {
  server: Server;
  /** The address to open, with the token when one is needed. */
  url: string;
  close(): Promise<void>;
}

/** Loopback needs no token: only this machine's users reach it. Anything else does. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));
}

const APP_DIR = fileURLToPath(new URL('./app/', import.meta.url));
const UPLOT_DIR = dirname(createRequire(import.meta.url).resolve('uplot/dist/uPlot.iife.min.js'));

/** The app's files: a fixed table, so no request path is ever joined onto the file system. */
export const ASSETS: Record<string, { file: string; type: string }> = {
  '/': { file: join(APP_DIR, 'index.html'), type: 'text/html; charset=utf-8' },
  '/app.js': { file: join(APP_DIR, 'app.js'), type: 'text/javascript; charset=utf-8' },
  '/app.css': { file: join(APP_DIR, 'app.css'), type: 'text/css; charset=utf-8' },
  '/uPlot.js': { file: join(UPLOT_DIR, 'uPlot.iife.min.js'), type: 'text/javascript; charset=utf-8' },
  '/uPlot.css': { file: join(UPLOT_DIR, 'uPlot.min.css'), type: 'text/css; charset=utf-8' },
};

export async function startUiServer(o: UiServerOptions): Promise<UiServer> {
  const token = isLoopback(o.host) ? undefined : randomBytes(24).toString('base64url');
  const server = createServer((req, res) => {
    try {
      handle(o.runsDir, token, req, res);
    } catch (e) {
      if (e instanceof NotFound) send(res, 404, { error: e.message });
      else send(res, 500, { error: e instanceof Error ? e.message : String(e) });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : o.port;
  const shown = o.host.includes(':') ? `[${o.host}]` : o.host;
  return {
    server,
    url: `http://${shown}:${port}/${token ? `?token=${token}` : ''}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function handle(root: string, token: string | undefined, req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://ui');
  const refusal = refuse(token, req, url);
  if (refusal) {
    send(res, refusal.status, { error: refusal.error });
    return;
  }
  const asset = ASSETS[url.pathname];
  if (!asset) {
    send(res, 200, api(root, url));
    return;
  }
  res.writeHead(200, {
    'content-type': asset.type,
    'cache-control': 'no-cache',
    // The page reads its token from the URL once; later requests (assets, API) carry it as a cookie.
    ...(token ? { 'set-cookie': `sandgym_ui=${token}; HttpOnly; SameSite=Strict; Path=/` } : {}),
  });
  res.end(readFileSync(asset.file));
}

function refuse(
  token: string | undefined,
  req: IncomingMessage,
  url: URL,
): { status: number; error: string } | undefined {
  if (req.method !== 'GET') return { status: 405, error: 'only GET' };
  if (token !== undefined) {
    return tokenMatches(token, url.searchParams.get('token') ?? cookieToken(req))
      ? undefined
      : { status: 401, error: 'open the URL with ?token=… that sandgym ui printed' };
  }
  // On loopback, a page from another site reaching us by DNS rebinding sends its own name as Host.
  const host = (req.headers.host ?? '').replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1');
  return isLoopback(host) ? undefined : { status: 403, error: 'Host is not a loopback name' };
}

/** The JSON endpoints; a run is only ever found among the listed ones, a set among the run's. */
function api(root: string, url: URL): unknown {
  if (!url.pathname.startsWith('/api/')) throw new NotFound(`no page ${url.pathname}`);
  const dirs = findRunDirs(root);
  const q = url.searchParams;
  if (url.pathname === '/api/runs') return { runs: dirs.map((d) => runInfoOrError(root, d)) };
  const dir = dirs.find((d) => runId(root, d) === q.get('run'));
  if (!dir) throw new NotFound(`no run ${q.get('run')} under ${root}`);
  switch (url.pathname) {
    case '/api/metrics':
      return { metrics: readMetrics(dir) };
    case '/api/heldout':
      return { heldOut: heldOut(dir) };
    case '/api/steps':
      return { steps: summarizeSteps(dir) };
    case '/api/sets':
      return { sets: episodeSets(dir) };
    case '/api/episodes':
      return episodePage(readTrajectories(dir, q.get('set') ?? '').map(episodeRow), {
        filter: (q.get('filter') ?? 'all') as EpisodeFilter,
        ...(q.get('task') ? { task: q.get('task')! } : {}),
        sort: (q.get('sort') ?? 'key') as 'key' | 'turns' | 'time',
        offset: Math.max(0, Number(q.get('offset') ?? 0) || 0),
        limit: Math.min(500, Math.max(1, Number(q.get('limit') ?? 50) || 50)),
      });
    case '/api/trajectory': {
      const key = q.get('key');
      const t = readTrajectories(dir, q.get('set') ?? '').find((x) => `${x.taskId}#${x.sample}` === key);
      if (!t) throw new NotFound(`no episode ${key}`);
      return trajectoryView(t);
    }
    default:
      throw new NotFound(`no endpoint ${url.pathname}`);
  }
}

/** One unreadable run (a damaged config.yaml) is shown with its error, not a failed list. */
function runInfoOrError(root: string, dir: string) {
  try {
    return runInfo(root, dir);
  } catch (e) {
    return { id: runId(root, dir), error: e instanceof Error ? e.message : String(e) };
  }
}

/** A trajectory for the page: token ids dropped (large, unreadable), their count and mean logprob kept. */
export function trajectoryView(t: Trajectory) {
  return {
    ...t,
    turns: t.turns.map(({ tokens, ...turn }) => ({
      ...turn,
      ...(tokens
        ? {
            completionTokenIds: tokens.completionIds.length,
            meanLogprob:
              tokens.completionLogprobs.reduce((a, b) => a + b, 0) /
              Math.max(1, tokens.completionLogprobs.length),
          }
        : {}),
    })),
  };
}

function tokenMatches(expected: string, given: string | undefined | null): boolean {
  if (!given) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

function cookieToken(req: IncomingMessage): string | undefined {
  return /(?:^|;\s*)sandgym_ui=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}
