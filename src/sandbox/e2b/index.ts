import type { ProviderOptions } from '../index.ts';
import { currentRunId } from '../owner.ts';
import { type E2BEnvironment, parseE2BOptions } from './e2b-options.ts';
import { E2BProvider } from './e2b-provider.ts';
import { TemplateMap } from './template-map.ts';

export {
  ENVELOPE_END_STREAM,
  EnvelopeDecoder,
  encodeEnvelope,
  encodeJsonEnvelope,
  parseEnvelopeJson,
} from './connect-envelope.ts';
export {
  type E2BConfigSection,
  type E2BEnvironment,
  type E2BOptions,
  e2bOptionsFromConfig,
} from './e2b-options.ts';
export { DEFAULT_TTL_MS, E2BProvider } from './e2b-provider.ts';
export { E2BSandbox } from './e2b-sandbox.ts';
export { LIMIT_METADATA, limitsFromMetadata, limitsToMetadata } from './limit-metadata.ts';
export {
  ENVD_PORT,
  type EndEvent,
  endEventOf,
  objectField,
  type ProcessConfig,
  type ProcessEvent,
  type ProcessSelector,
  parseProcessSelector,
  parseSignal,
  processEventJson,
} from './process-messages.ts';
export { isRpcError, RPC_CODES, type RpcCode, RpcError } from './rpc-error.ts';
export { parseTemplateMap, TemplateMap } from './template-map.ts';

/**
 * The e2b provider. Options (`ProviderOptions.options`, see e2b-options.ts) fall back to the variables
 * the E2B SDKs read: E2B_API_KEY, E2B_DOMAIN, E2B_API_URL, E2B_SANDBOX_URL. No key-format check: AGS and
 * self-hosted keys are not `e2b_…`.
 */
export async function createE2BProvider(
  options: ProviderOptions = {},
  env: E2BEnvironment = process.env,
): Promise<E2BProvider> {
  const settings = parseE2BOptions(options.options, env);
  const templates = settings.templateMap
    ? await TemplateMap.load(settings.templateMap, settings.templates)
    : new TemplateMap(settings.templates);
  return new E2BProvider({ options: settings, runId: options.runId ?? currentRunId(), templates });
}
