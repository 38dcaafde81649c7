import { createWriteStream } from 'node:fs';
import { access, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DatasetError, errorMessage } from '../errors.ts';
import { DATA_FILE_EXTENSIONS } from './read-rows.ts';

/**
 * Downloads a dataset's data files from the Hugging Face Hub (or a mirror speaking its API) into a cache
 * laid out like huggingface_hub's: `<cacheDir>/datasets--<owner>--<name>/snapshots/<commit>/<path>`, with
 * `refs/<revision>` naming the commit last resolved, so a cached revision loads again without a network.
 */
export interface HubDatasetOptions {
  /** `owner/name`, e.g. `princeton-nlp/SWE-bench_Lite`. */
  repo: string;
  /** Branch, tag or commit (default `main`). */
  revision?: string;
  /** Only this split's files: `<split>-*.parquet`, `<split>.jsonl`, or files under a `<split>/` folder. */
  split?: string;
  /** Hub URL (default https://huggingface.co; the CLI passes `HF_ENDPOINT`). */
  endpoint?: string;
  /** Access token for gated or private sets (the CLI passes `HF_TOKEN`). */
  token?: string;
  cacheDir: string;
  fetch?: typeof fetch;
  signal?: AbortSignal;
  /** How long a request may wait for its response, and a download for its next bytes (default 60 s). */
  timeoutMs?: number;
  /** First wait before retrying a request that may pass on a second try (default 1 s, then doubled). */
  retryDelayMs?: number;
}

export const DEFAULT_HUB_ENDPOINT = 'https://huggingface.co';

/** The Hub settings in an environment (`HF_ENDPOINT`, `HF_TOKEN`); the caller passes `process.env`. */
export function hubSettingsFromEnv(env: Readonly<Record<string, string | undefined>>): {
  endpoint: string;
  token?: string;
} {
  const settings: { endpoint: string; token?: string } = {
    endpoint: env.HF_ENDPOINT || DEFAULT_HUB_ENDPOINT,
  };
  if (env.HF_TOKEN) settings.token = env.HF_TOKEN;
  return settings;
}

interface RevisionInfo {
  sha: string;
  files: string[];
}

/** The local paths of the dataset's data files, downloading those not in the cache. */
export async function downloadHubDataset(options: HubDatasetOptions): Promise<string[]> {
  const revision = options.revision ?? 'main';
  const repoDir = join(options.cacheDir, `datasets--${options.repo.replaceAll('/', '--')}`);
  const refFile = join(repoDir, 'refs', revision);
  let info: RevisionInfo;
  try {
    info = await withRetries(options, () => revisionInfo(options, revision));
  } catch (e) {
    const cached = await cachedRevision(repoDir, refFile);
    if (!cached || !(e instanceof DatasetError) || !e.isRetryable) throw e;
    info = cached;
  }
  const files = info.files.filter((f) => isDataFile(f) && inSplit(f, options.split)).sort();
  if (files.length === 0) {
    const what = options.split ? `split "${options.split}"` : 'data';
    throw new DatasetError(
      `dataset ${options.repo}@${revision}: no ${what} files (${DATA_FILE_EXTENSIONS.join(', ')}); it has: ${info.files.join(', ') || 'nothing'}`,
    );
  }
  const snapshot = join(repoDir, 'snapshots', info.sha);
  for (const file of files) {
    const dest = join(snapshot, file);
    if (!(await exists(dest)))
      await withRetries(options, () => downloadFile(options, `${info.sha}/${file}`, dest));
  }
  await mkdir(dirname(refFile), { recursive: true });
  await writeFile(refFile, info.sha);
  await writeFile(join(snapshot, '.files.json'), JSON.stringify(info.files));
  return files.map((f) => join(snapshot, f));
}

async function revisionInfo(options: HubDatasetOptions, revision: string): Promise<RevisionInfo> {
  const url = `${endpointOf(options)}/api/datasets/${options.repo}/revision/${encodeURIComponent(revision)}`;
  const deadline = new IdleDeadline(options.timeoutMs ?? 60_000);
  let body: { sha?: unknown; siblings?: { rfilename?: unknown }[] };
  try {
    body = (await (await request(options, url, deadline)).json()) as typeof body;
  } catch (e) {
    if (e instanceof DatasetError) throw e;
    throw new DatasetError(`dataset ${options.repo}: reading ${url} failed: ${describe(e, deadline)}`, {
      cause: e,
      isRetryable: !options.signal?.aborted,
    });
  } finally {
    deadline.clear();
  }
  if (typeof body.sha !== 'string' || !Array.isArray(body.siblings)) {
    throw new DatasetError(`dataset ${options.repo}: ${url} did not answer with a revision (sha, siblings)`);
  }
  const files = body.siblings.map((s) => s.rfilename).filter((f): f is string => typeof f === 'string');
  for (const f of files) {
    if (posix.isAbsolute(f) || posix.normalize(f).startsWith('..')) {
      throw new DatasetError(`dataset ${options.repo}: the Hub listed an unsafe file path "${f}"`);
    }
  }
  return { sha: body.sha, files };
}

async function cachedRevision(repoDir: string, refFile: string): Promise<RevisionInfo | undefined> {
  try {
    const sha = (await readFile(refFile, 'utf8')).trim();
    const files = JSON.parse(
      await readFile(join(repoDir, 'snapshots', sha, '.files.json'), 'utf8'),
    ) as string[];
    return { sha, files };
  } catch {
    return undefined;
  }
}

/** Streams to a temporary file renamed into place, so an interrupted download never looks complete. */
async function downloadFile(options: HubDatasetOptions, path: string, dest: string): Promise<void> {
  const url = `${endpointOf(options)}/datasets/${options.repo}/resolve/${path.split('/').map(encodeURIComponent).join('/')}`;
  await mkdir(dirname(dest), { recursive: true });
  const part = `${dest}.part-${process.pid}`;
  const idle = new IdleDeadline(options.timeoutMs ?? 60_000);
  try {
    const response = await request(options, url, idle);
    if (!response.body)
      throw new DatasetError(`dataset ${options.repo}: ${url} sent no body`, { isRetryable: true });
    const body = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream);
    body.on('data', () => idle.touch());
    await pipeline(body, createWriteStream(part));
    await rename(part, dest);
  } catch (e) {
    await rm(part, { force: true });
    if (e instanceof DatasetError) throw e;
    throw new DatasetError(`dataset ${options.repo}: downloading ${url} failed: ${describe(e, idle)}`, {
      cause: e,
      isRetryable: true,
    });
  } finally {
    idle.clear();
  }
}

const ATTEMPTS = 3;

/** Retries what may pass (network faults, 429, 5xx) twice, waiting retryDelayMs, then twice that. */
async function withRetries<T>(options: HubDatasetOptions, attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (e) {
      if (n >= ATTEMPTS || !(e instanceof DatasetError) || !e.isRetryable || options.signal?.aborted) throw e;
      await new Promise((resolve) => setTimeout(resolve, (options.retryDelayMs ?? 1000) * 2 ** (n - 1)));
    }
  }
}

/**
 * One GET, aborted when `deadline` expires (the caller keeps it running while it reads the body, and
 * clears it); HTTP errors become DatasetErrors saying what to do.
 */
async function request(options: HubDatasetOptions, url: string, deadline: IdleDeadline): Promise<Response> {
  const signals = [deadline.signal, ...(options.signal ? [options.signal] : [])];
  const headers: Record<string, string> = options.token ? { authorization: `Bearer ${options.token}` } : {};
  let response: Response;
  try {
    response = await (options.fetch ?? fetch)(url, { headers, signal: AbortSignal.any(signals) });
  } catch (e) {
    throw new DatasetError(`dataset ${options.repo}: cannot reach ${url}: ${describe(e, deadline)}`, {
      cause: e,
      isRetryable: !options.signal?.aborted,
    });
  }
  if (response.ok) return response;
  await response.body?.cancel();
  const status = `HTTP ${response.status}`;
  if (response.status === 401 || response.status === 403) {
    throw new DatasetError(
      `dataset ${options.repo}: ${status} from ${url}; the set is gated or private: set HF_TOKEN to a token that can read it`,
    );
  }
  if (response.status === 404) {
    throw new DatasetError(
      `dataset ${options.repo}: ${status} from ${url}; check the dataset name and revision`,
    );
  }
  throw new DatasetError(`dataset ${options.repo}: ${status} from ${url}`, {
    isRetryable: response.status === 429 || response.status >= 500,
  });
}

/** Aborts when nothing happened for `ms`; `touch` restarts the wait. */
class IdleDeadline {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout;
  expired = false;

  constructor(readonly timeoutMs: number) {
    this.timer = this.start();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  touch(): void {
    clearTimeout(this.timer);
    this.timer = this.start();
  }

  clear(): void {
    clearTimeout(this.timer);
  }

  private start(): NodeJS.Timeout {
    return setTimeout(() => {
      this.expired = true;
      this.controller.abort();
    }, this.timeoutMs);
  }
}

function describe(e: unknown, deadline: IdleDeadline): string {
  return deadline.expired
    ? `nothing received for ${deadline.timeoutMs} ms (raise timeoutMs)`
    : errorMessage(e);
}

function endpointOf(options: HubDatasetOptions): string {
  return (options.endpoint || DEFAULT_HUB_ENDPOINT).replace(/\/+$/, '');
}

function isDataFile(path: string): boolean {
  return (DATA_FILE_EXTENSIONS as readonly string[]).some((ext) => path.toLowerCase().endsWith(ext));
}

/** Hub conventions: `data/test-00000-of-00001.parquet`, `test.jsonl`, `test/0000.parquet`. */
function inSplit(path: string, split: string | undefined): boolean {
  if (!split) return true;
  const parts = path.split('/');
  const name = parts.at(-1)!;
  return parts.slice(0, -1).includes(split) || name.startsWith(`${split}-`) || name.startsWith(`${split}.`);
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
