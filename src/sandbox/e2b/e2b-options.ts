import { z } from 'zod';
import { ConfigError } from '../../errors.ts';

/**
 * The e2b provider's own options (`ProviderOptions.options`), for E2B, Tencent AgentSandbox (AGS) and
 * other servers of the E2B protocol, `sandgym serve` included. Unknown keys are refused.
 */
const e2bOptionsSchema = z
  .object({
    /** The key, sent as X-API-Key. Any format: AGS keys are not `e2b_…`. Default: $E2B_API_KEY. */
    apiKey: z.string().min(1).optional(),
    /** E2B domain; AGS: `<region>.tencentags.com`. Default: $E2B_DOMAIN, else `e2b.app`. */
    domain: z.string().min(1).optional(),
    /** Lifecycle API URL. Default: $E2B_API_URL, else `https://api.<domain>`. */
    apiUrl: z.string().url().optional(),
    /**
     * One URL for every in-sandbox (envd) call, routed by the E2b-Sandbox-Id header (self-hosted
     * servers). Default: $E2B_SANDBOX_URL, else `https://49983-<sandbox id>.<domain>`.
     */
    sandboxUrl: z.string().url().optional(),
    /** JSON file mapping docker image → template (AGS: sandbox tool); see `template-map.ts`. */
    templateMap: z.string().min(1).optional(),
    /** Inline image → template entries, over those of `templateMap`. */
    templates: z.record(z.string(), z.string().min(1)).optional(),
    /** Deadline of each lifecycle and envd request (not of commands, which have their own). */
    requestTimeoutMs: z.number().int().positive().default(60_000),
    /** Deadline of a sandbox create: big images start slowly on some clouds. */
    createTimeoutMs: z.number().int().positive().default(300_000),
    /**
     * Read deadline of every stream: a command's event stream that brings neither data nor keepalive
     * for this long fails. The server is asked for keepalives at a third of it.
     */
    streamIdleTimeoutMs: z.number().int().min(3000).default(60_000),
  })
  .strict();

export type E2BOptions = z.infer<typeof e2bOptionsSchema> & {
  apiKey: string;
  domain: string;
  apiUrl: string;
};

/** Environment variables the E2B SDKs read, as fallbacks of the options above. */
export interface E2BEnvironment {
  E2B_API_KEY?: string | undefined;
  E2B_DOMAIN?: string | undefined;
  E2B_API_URL?: string | undefined;
  E2B_SANDBOX_URL?: string | undefined;
}

export function parseE2BOptions(raw: Record<string, unknown> | undefined, env: E2BEnvironment): E2BOptions {
  const parsed = e2bOptionsSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map((i) => `${i.path.join('.') || '(options)'}: ${i.message}`)
      .join('; ');
    const valid = Object.keys(e2bOptionsSchema.shape).join(', ');
    throw new ConfigError(`invalid e2b provider options: ${issues}; valid options: ${valid}`);
  }
  const o = parsed.data;
  const apiKey = o.apiKey ?? nonEmpty(env.E2B_API_KEY);
  if (!apiKey) {
    throw new ConfigError(
      'the e2b provider needs an API key: set E2B_API_KEY (for AGS, a key of the region in E2B_DOMAIN; ' +
        'for "sandgym serve", one made with "sandgym serve --add-key")',
    );
  }
  const domain = o.domain ?? nonEmpty(env.E2B_DOMAIN) ?? 'e2b.app';
  const sandboxUrl = o.sandboxUrl ?? nonEmpty(env.E2B_SANDBOX_URL);
  return {
    ...o,
    apiKey,
    domain,
    apiUrl: o.apiUrl ?? nonEmpty(env.E2B_API_URL) ?? `https://api.${domain}`,
    ...(sandboxUrl !== undefined && { sandboxUrl }),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** The `sandbox.e2b` section of the sandgym config (src/config/schema.ts). */
export interface E2BConfigSection {
  domain: string;
  api_url: string | null;
  sandbox_url: string | null;
  template_map: string | null;
}

/**
 * The provider options that `sandbox.e2b.*` sets, for `createProvider('e2b', {options})`. Unset keys
 * (null, and the default domain) are left out, so the E2B_* variables still apply to them.
 */
export function e2bOptionsFromConfig(c: E2BConfigSection): Record<string, unknown> {
  return {
    ...(c.domain !== 'e2b.app' && { domain: c.domain }),
    ...(c.api_url !== null && { apiUrl: c.api_url }),
    ...(c.sandbox_url !== null && { sandboxUrl: c.sandbox_url }),
    ...(c.template_map !== null && { templateMap: c.template_map }),
  };
}
