import { isConfigError } from '../errors.ts';
import { limitsFromMetadata } from '../sandbox/e2b/index.ts';
import { normalizeImageName } from '../sandbox/images/index.ts';
import type { SandboxLimits } from '../sandbox/index.ts';
import { HttpError } from './http-io.ts';
import type { ServerSettings } from './server-options.ts';

/** A create request (E2B `NewSandbox`), checked. */
export interface NewSandboxSpec {
  templateID: string;
  /** The image the template names. */
  image: string;
  timeoutS: number;
  metadata: Record<string, string>;
  envVars: Record<string, string>;
  network: boolean;
  limits: Partial<SandboxLimits>;
}

/** The API's default lifetime when a create names none (spec/openapi.yml: `timeout` default 15). */
const DEFAULT_TIMEOUT_S = 15;
/** Template names that stand for images: `base` (what `Sandbox.create()` with no template asks). */
export const DEFAULT_TEMPLATES: Readonly<Record<string, string>> = { base: 'sandgym/base' };
/** Snapshots live under this prefix, one namespace per key. */
export const SNAPSHOT_PREFIX = 'sandgym-serve';

export function parseNewSandbox(
  body: Record<string, unknown>,
  keyId: string,
  s: ServerSettings,
): NewSandboxSpec {
  const templateID = body.templateID;
  if (typeof templateID !== 'string' || templateID === '') throw new HttpError(400, 'templateID is required');
  for (const [field, unsupported] of [
    ['autoPause', body.autoPause === true],
    ['volumeMounts', Array.isArray(body.volumeMounts) && body.volumeMounts.length > 0],
    ['mcp', body.mcp !== undefined && body.mcp !== null],
  ] as const) {
    if (unsupported) throw new HttpError(400, `${field} is not supported by sandgym serve`);
  }
  refuseEgressRules(body.network);
  const network = body.allow_internet_access === true;
  if (network && !s.allowNetwork) {
    throw new HttpError(
      400,
      'this server gives sandboxes no network: start it with --allow-network to allow it',
    );
  }
  const metadata = stringRecord(body.metadata, 'metadata');
  return {
    templateID,
    image: templateImage(templateID, keyId, s.templates),
    timeoutS: timeoutSeconds(body.timeout, s.maxTimeoutS, DEFAULT_TIMEOUT_S),
    metadata,
    envVars: envRecord(body.envVars),
    network,
    limits: checkedLimits(metadata, s),
  };
}

/**
 * The image a template names: a name in `templates` (E2B's `base`, the SDKs' default, is the base image),
 * else an image name; snapshots of key K are `sandgym-serve/K/<name>`, which only K may start (anyone
 * else is told it does not exist).
 */
export function templateImage(
  templateID: string,
  keyId: string,
  templates: Readonly<Record<string, string>> = DEFAULT_TEMPLATES,
): string {
  let image: string;
  try {
    image = normalizeImageName(Object.hasOwn(templates, templateID) ? templates[templateID]! : templateID);
  } catch (e) {
    throw new HttpError(404, `template '${templateID}' not found: ${(e as Error).message}`);
  }
  const parts = image.split('/');
  if (parts[0] === SNAPSHOT_PREFIX && parts[1] !== keyId)
    throw new HttpError(404, `template '${templateID}' not found`);
  return image;
}

/**
 * E2B's outbound rules (`network.allowOut`, `denyOut`, `rules`, `egressProxy`): this server cannot
 * enforce them, and a sandbox made without them would have more network than its creator asked for.
 */
function refuseEgressRules(network: unknown): void {
  if (network === undefined || network === null) return;
  if (typeof network !== 'object' || Array.isArray(network))
    throw new HttpError(400, 'network must be an object');
  for (const field of ['allowOut', 'denyOut', 'rules', 'egressProxy'] as const) {
    const value = (network as Record<string, unknown>)[field];
    if (value === undefined || value === null) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    if (typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0) continue;
    throw new HttpError(
      400,
      `network.${field} is not enforced by sandgym serve: sandboxes have no network, or (with ` +
        '--allow-network and allow_internet_access) all of it; leave it out',
    );
  }
}

/** A lifetime in whole seconds, from 0 (expire now) to `max`; `fallback` when absent. */
export function timeoutSeconds(value: unknown, max: number, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new HttpError(400, `timeout must be a whole number of seconds, got ${JSON.stringify(value)}`);
  }
  if (value > max) throw new HttpError(400, `timeout ${value} s is over this server's maximum of ${max} s`);
  return value;
}

function checkedLimits(metadata: Record<string, string>, s: ServerSettings): Partial<SandboxLimits> {
  let limits: Partial<SandboxLimits>;
  try {
    limits = limitsFromMetadata(metadata);
  } catch (e) {
    throw isConfigError(e) ? new HttpError(400, e.message) : e;
  }
  for (const [key, max] of Object.entries(s.maxLimits) as [keyof typeof s.maxLimits, number][]) {
    const asked = limits[key];
    if (asked !== undefined && asked > max) {
      throw new HttpError(400, `limit ${key}=${asked} is over this server's maximum of ${max}`);
    }
  }
  return limits;
}

const MAX_ENTRIES = 128;

function stringRecord(value: unknown, field: string): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw new HttpError(400, `${field} must be an object of strings`);
  const entries = Object.entries(value);
  if (entries.length > MAX_ENTRIES) throw new HttpError(400, `${field} has more than ${MAX_ENTRIES} entries`);
  for (const [k, v] of entries) {
    if (typeof v !== 'string' || k.length > 256 || v.length > 8192) {
      throw new HttpError(
        400,
        `${field}.${k} must be a string (keys up to 256, values up to 8192 characters)`,
      );
    }
  }
  return { ...(value as Record<string, string>) };
}

function envRecord(value: unknown): Record<string, string> {
  const env = stringRecord(value, 'envVars');
  for (const [k, v] of Object.entries(env)) {
    if (k === '' || k.includes('=') || k.includes('\0') || v.includes('\0')) {
      throw new HttpError(400, `envVars: invalid environment variable ${JSON.stringify(k)}`);
    }
  }
  return env;
}
