export { type ApiKeyRecord, addApiKey, hashApiKey, KeyStore, newApiKey, parseKeysFile } from './api-keys.ts';
export { SandboxServer } from './sandbox-server.ts';
export type { SandboxServerOptions } from './server-options.ts';
