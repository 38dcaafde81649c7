import { SandboxError } from '../../errors.ts';

/** What a lifecycle call was doing, for the message of its failure. */
export interface ApiCallContext {
  /** e.g. `create sandbox`, `kill`, `list sandboxes`. */
  action: string;
  apiUrl: string;
  domain: string;
  sandboxId?: string;
  /** For creates: the template asked for, and the image it stands for. */
  template?: string;
  image?: string;
  /** An endpoint not every E2B-protocol server has (fork, snapshots): a 404 may mean it is missing. */
  optional?: boolean;
  /** Seconds from a Retry-After header. */
  retryAfterS?: number | undefined;
}

/**
 * The SandboxError for a lifecycle API answer of `status`, saying what to do. 401/403 are almost always
 * the key: AGS keys only work in their own region. 404 on a sandbox means it expired or was killed;
 * on a create it means the template is unknown. 429 is the account's quota.
 */
export function apiError(status: number, serverMessage: string, c: ApiCallContext): SandboxError {
  const said = serverMessage ? `: ${serverMessage}` : '';
  const where = `${c.action} at ${c.apiUrl} answered HTTP ${status}${said}`;
  if (status === 401 || status === 403) {
    return new SandboxError(
      c.sandboxId,
      `${where}; check E2B_API_KEY; for AGS, the key must belong to the region in E2B_DOMAIN ` +
        `(now "${c.domain}")`,
    );
  }
  if (status === 404 && c.template !== undefined) {
    const image = c.image !== undefined && c.image !== c.template ? ` (image "${c.image}")` : '';
    return new SandboxError(
      c.sandboxId,
      `${where}; template "${c.template}"${image} does not exist there: map the image to a template in ` +
        'sandbox.e2b.template_map (AGS: a sandbox tool), or build it',
    );
  }
  if (status === 404 && c.sandboxId !== undefined) {
    const missing = c.optional ? `, or this server does not support ${c.action}` : '';
    return new SandboxError(
      c.sandboxId,
      `${where}; the sandbox expired (its timeout passed) or was killed${missing}; create a new one`,
      { isRetryable: !c.optional },
    );
  }
  if (status === 429) {
    const wait = c.retryAfterS !== undefined ? ` (the server asks to wait ${c.retryAfterS} s)` : '';
    return new SandboxError(
      c.sandboxId,
      `${where}; quota exceeded: too many sandboxes at once or creates per second for this key${wait}; ` +
        'retry later, lower the concurrency, or raise the quota',
      { isRetryable: true },
    );
  }
  if (status === 501 || status === 405) {
    return new SandboxError(c.sandboxId, `${where}; ${c.action} is not supported by this server`);
  }
  return new SandboxError(c.sandboxId, where, { isRetryable: status >= 500 || status === 408 });
}

/** The message of an E2B error body (`{code, message}`), or its text cut short. */
export function serverMessageOf(body: Buffer): string {
  const text = body.toString('utf8');
  try {
    const json = JSON.parse(text) as { message?: unknown };
    if (typeof json.message === 'string') return json.message;
  } catch {}
  return text.length > 300 ? `${text.slice(0, 300)}…` : text.trim();
}

/** Seconds of a Retry-After header given as an integer, else undefined. */
export function retryAfterSeconds(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && /^\d+$/.test(value.trim()) ? Number(value) : undefined;
}
