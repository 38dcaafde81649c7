import { createHash, timingSafeEqual } from 'node:crypto';
import { HttpError } from './http-io.ts';
import type { ServedSandbox } from './sandbox-registry.ts';

/**
 * envd's signed `/files` URLs, as the E2B SDKs make them (`uploadUrl`, `downloadUrl`): the query holds
 * `path`, `username` (optional), `signature` = "v1_" + unpadded base64 of
 * sha256("<path>:<read|write>:<username>:<access token>[:<expiration>]"), and, when the URL expires,
 * `signature_expiration` in Unix seconds. A signature proves knowledge of one sandbox's access token,
 * so a URL without a sandbox in its host (a client given one sandbox URL for all) is routed to the
 * sandbox whose token makes it.
 */
export function fileUrlSignature(p: {
  path: string;
  operation: 'read' | 'write';
  username: string;
  accessToken: string;
  expiration: number | undefined;
}): string {
  const raw = [
    p.path,
    p.operation,
    p.username,
    p.accessToken,
    ...(p.expiration === undefined ? [] : [p.expiration]),
  ];
  return `v1_${createHash('sha256').update(raw.join(':')).digest('base64').replace(/=+$/, '')}`;
}

/** True when `url` carries a signature (it is then checked, not the access token header). */
export function isSignedFileUrl(url: URL): boolean {
  return url.pathname === '/files' && url.searchParams.has('signature');
}

/**
 * The sandbox among `candidates` whose access token signed `url` for `method`; a wrong or expired
 * signature is a 401 that says which.
 */
export function signedFileSandbox(
  url: URL,
  method: string,
  candidates: Iterable<ServedSandbox>,
  nowMs = Date.now(),
): ServedSandbox {
  const q = url.searchParams;
  const presented = q.get('signature') ?? '';
  const expirationText = q.get('signature_expiration');
  let expiration: number | undefined;
  if (expirationText !== null) {
    if (!/^\d{1,12}$/.test(expirationText)) {
      throw new HttpError(401, 'malformed signature_expiration: Unix seconds expected');
    }
    expiration = Number(expirationText);
    if (expiration * 1000 < nowMs) {
      throw new HttpError(
        401,
        `the signed URL expired at ${new Date(expiration * 1000).toISOString()}: ask for a new one`,
      );
    }
  }
  const operation = method === 'GET' ? 'read' : 'write';
  const digest = (s: string) => createHash('sha256').update(s).digest();
  const want = digest(presented);
  for (const served of candidates) {
    const signature = fileUrlSignature({
      path: q.get('path') ?? '',
      operation,
      username: q.get('username') ?? '',
      accessToken: served.envdAccessToken,
      expiration,
    });
    if (timingSafeEqual(digest(signature), want)) return served;
  }
  throw new HttpError(
    401,
    `invalid signature for ${operation} of '${q.get('path') ?? ''}': the URL was changed, or signed for ` +
      'another path, operation, user or sandbox',
  );
}
