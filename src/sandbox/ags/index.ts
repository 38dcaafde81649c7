export {
  AGS_API_VERSION,
  type AgsApi,
  AgsCallError,
  AgsClient,
  type AgsSettings,
  agsSettingsFromEnv,
} from './ags-client.ts';
export { type AgsGcReport, gcAgs } from './tool-gc.ts';
export {
  clientTokenFor,
  listSandgymTools,
  type SyncResult,
  syncTools,
  TAG_DATASET,
  TAG_IMAGE,
  TAG_OWNER,
  toolNameFor,
} from './tool-sync.ts';
