import { lookup } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import pRetry from 'p-retry';
import tencentcloud from 'tencentcloud-sdk-nodejs-common';
import { ConfigError, SandgymError } from '../../errors.ts';

/** AgentSandbox's API version (tencentcloud-sdk-nodejs `ags/v20250920`). */
export const AGS_API_VERSION = '2025-09-20';
const DEFAULT_ENDPOINT = 'https://ags.tencentcloudapi.com';

export interface AgsSettings {
  secretId: string;
  secretKey: string;
  region: string;
  /** The API's URL: Tencent Cloud's, or a `sandgym serve` control plane's. */
  endpoint: string;
}

/**
 * The control-plane settings from the environment (TENCENTCLOUD_SECRET_ID/KEY, AGS_REGION, AGS_ENDPOINT),
 * checked early: missing credentials and an E2B_DOMAIN of another region are the common first failures.
 */
export function agsSettingsFromEnv(env: NodeJS.ProcessEnv, region?: string): AgsSettings {
  const secretId = env.TENCENTCLOUD_SECRET_ID;
  const secretKey = env.TENCENTCLOUD_SECRET_KEY;
  if (!secretId || !secretKey) {
    throw new ConfigError(
      'AGS needs Tencent Cloud API credentials: set TENCENTCLOUD_SECRET_ID and TENCENTCLOUD_SECRET_KEY ' +
        '(console: CAM > API keys; for sandgym serve: "sandgym serve --add-ags-key")',
    );
  }
  const r = region ?? env.AGS_REGION;
  if (!r) throw new ConfigError('AGS needs a region: set AGS_REGION or pass --region (e.g. ap-guangzhou)');
  const domainRegion = /^([a-z]+-[a-z]+(?:-\d+)?)\.tencentags\.com$/.exec(env.E2B_DOMAIN ?? '')?.[1];
  if (domainRegion !== undefined && domainRegion !== r) {
    throw new ConfigError(
      `region mismatch: E2B_DOMAIN ${env.E2B_DOMAIN} is region ${domainRegion}, the AGS region is ${r}; ` +
        'tools made in one region are not found (401/403) from the other: make them the same',
    );
  }
  return { secretId, secretKey, region: r, endpoint: env.AGS_ENDPOINT ?? DEFAULT_ENDPOINT };
}

/** An AGS API error: its code and request id, and what to do about it when we know. */
export class AgsCallError extends SandgymError {
  override name = 'AgsCallError';
  constructor(
    readonly action: string,
    readonly code: string,
    readonly requestId: string,
    message: string,
    retryable: boolean,
  ) {
    super(message, { isRetryable: retryable });
  }
}

/** The calls sync makes, so tests can stand a fake in front of the real client. */
export interface AgsApi {
  call<T = Record<string, unknown>>(action: string, params: Record<string, unknown>): Promise<T>;
}

/**
 * AGS through Tencent Cloud's official Node SDK: its CommonClient signs TC3-HMAC-SHA256 and calls any
 * action by name. Throttling, 5xx and network failures are retried (a create carries a ClientToken, so a
 * retried create makes nothing twice); other errors name their code and request id.
 */
export class AgsClient implements AgsApi {
  private readonly client: InstanceType<typeof tencentcloud.CommonClient>;

  constructor(
    private readonly s: AgsSettings,
    /** Retries of a throttled or failed call, with exponential backoff from 0.5 s. */
    private readonly retries = 4,
  ) {
    const url = new URL(s.endpoint);
    const port = url.port ? `:${url.port}` : '';
    // The SDK names the signing service after the endpoint's first DNS label, so an endpoint that is not
    // ags.<…> (a server at an IP address) is addressed as ags.sandgym-serve and reached at its real host.
    const direct = url.hostname.startsWith('ags.');
    const Agent = url.protocol === 'https:' ? https.Agent : http.Agent;
    const agent = new Agent({
      keepAlive: true,
      ...(!direct && {
        lookup: ((_host, options, cb) =>
          lookup(url.hostname.replace(/^\[|\]$/g, ''), options, cb)) satisfies LookupFunction,
      }),
    });
    this.client = new tencentcloud.CommonClient(
      direct ? `${url.host}` : `ags.sandgym-serve${port}`,
      AGS_API_VERSION,
      {
        credential: { secretId: s.secretId, secretKey: s.secretKey },
        region: s.region,
        profile: { httpProfile: { protocol: `${url.protocol}//`, reqTimeout: 60, agent } },
      },
    );
  }

  async call<T = Record<string, unknown>>(action: string, params: Record<string, unknown>): Promise<T> {
    return pRetry(
      async () => {
        try {
          return (await this.client.request(action, params)) as T;
        } catch (e) {
          throw this.explain(action, e);
        }
      },
      {
        retries: this.retries,
        minTimeout: 500,
        shouldRetry: ({ error }) => (error as AgsCallError).isRetryable,
      },
    );
  }

  private explain(action: string, e: unknown): AgsCallError {
    const x = e as { code?: string; requestId?: string; httpCode?: number; message?: string };
    const code = x.code ?? (x.httpCode ? `HTTP ${x.httpCode}` : 'NetworkError');
    const requestId = x.requestId ?? '';
    const retryable =
      code === 'RequestLimitExceeded' ||
      code.startsWith('InternalError') ||
      (x.httpCode !== undefined && x.httpCode >= 500) ||
      (x.code === undefined && x.httpCode === undefined);
    let hint = '';
    if (code.startsWith('AuthFailure') || x.httpCode === 401 || x.httpCode === 403) {
      hint =
        `; check TENCENTCLOUD_SECRET_ID/KEY and the region: ${this.s.region} (AGS_REGION) must be the ` +
        'region of your key and of E2B_DOMAIN (<region>.tencentags.com)';
    } else if (code === 'UnsupportedRegion' || code === 'InvalidParameterValue.Region') {
      hint = `; AGS_REGION=${this.s.region} is not a region of this endpoint (${this.s.endpoint})`;
    } else if (code.startsWith('LimitExceeded') || code.startsWith('ResourceInsufficient')) {
      hint =
        '; a quota of the account is used up: delete unused tools ("sandgym gc --provider ags") or ask for more';
    }
    return new AgsCallError(
      action,
      code,
      requestId,
      `AGS ${action} failed: ${code}: ${x.message ?? String(e)}${requestId ? ` (RequestId ${requestId})` : ''}${hint}`,
      retryable,
    );
  }
}
