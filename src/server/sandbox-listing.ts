import type { ApiKeyRecord } from './api-keys.ts';
import { HttpError } from './http-io.ts';
import { listedSandboxJson, sandboxState } from './sandbox-json.ts';
import type { ServedSandbox } from './sandbox-registry.ts';
import type { ServerContext } from './server-context.ts';

const MAX_PAGE = 100;

/**
 * GET /sandboxes and /v2/sandboxes: the key's sandboxes, filtered by `metadata` ("k=v&k2=v2", keys and
 * values URL-encoded), `state`, `template` and `startedAfter`, newest first unless `order=asc`. When
 * `limit` is given the page ends early and the next one is named by the X-Next-Token header.
 */
export function listSandboxes(
  ctx: ServerContext,
  key: ApiKeyRecord,
  url: URL,
): { items: ReturnType<typeof listedSandboxJson>[]; nextToken: string | undefined } {
  const q = url.searchParams;
  const filter = parseMetadataFilter(q.get('metadata'));
  const states = q.get('state')?.split(',');
  const template = q.get('template');
  const after = q.get('startedAfter');
  const afterMs = after === null ? undefined : Date.parse(after);
  if (afterMs !== undefined && Number.isNaN(afterMs))
    throw new HttpError(400, `startedAfter is not a date: ${after}`);
  const order = q.get('order') ?? 'desc';
  if (order !== 'asc' && order !== 'desc') throw new HttpError(400, 'order must be asc or desc');
  const matching = ctx.registry
    .ownedBy(key.id)
    .filter(
      (s) =>
        (states === undefined || states.includes(sandboxState(s))) &&
        (template === null || s.templateID === template) &&
        (afterMs === undefined || s.startedAtMs >= afterMs) &&
        Object.entries(filter).every(([k, v]) => s.metadata[k] === v),
    )
    .sort((a, b) => (order === 'asc' ? 1 : -1) * (a.startedAtMs - b.startedAtMs || a.id.localeCompare(b.id)));
  const { items, nextToken } = page(matching, q.get('limit'), q.get('nextToken'));
  return { items: items.map(listedSandboxJson), nextToken };
}

function page(
  all: ServedSandbox[],
  limit: string | null,
  token: string | null,
): { items: ServedSandbox[]; nextToken: string | undefined } {
  const offset = token === null ? 0 : Number(Buffer.from(token, 'base64url').toString());
  if (!Number.isSafeInteger(offset) || offset < 0)
    throw new HttpError(400, 'nextToken is not one this server gave');
  if (limit === null && token === null) return { items: all, nextToken: undefined };
  const size = limit === null ? MAX_PAGE : Number(limit);
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE) {
    throw new HttpError(400, `limit must be an integer from 1 to ${MAX_PAGE}`);
  }
  const nextToken =
    offset + size < all.length ? Buffer.from(String(offset + size)).toString('base64url') : undefined;
  return { items: all.slice(offset, offset + size), nextToken };
}

/** "k=v&k2=v2" with each key and value URL-encoded (E2B's `metadata` query), as a record. */
export function parseMetadataFilter(query: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  if (query === null || query === '') return out;
  try {
    for (const [k, v] of new URLSearchParams(query)) out[decodeURIComponent(k)] = decodeURIComponent(v);
  } catch {
    throw new HttpError(400, `malformed metadata filter: ${query}`);
  }
  return out;
}
