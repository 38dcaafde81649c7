export { AgsKeyStore, addAgsKey } from './ags/ags-keys.ts';
export { AGS_VERSION, AgsControlPlane, type AgsOptions } from './ags/control-plane.ts';
export { ToolStore } from './ags/tool-store.ts';
export { type ApiKeyRecord, addApiKey, hashApiKey, KeyStore, newApiKey, parseKeysFile } from './api-keys.ts';
export { SandboxServer } from './sandbox-server.ts';
export type { SandboxServerOptions } from './server-options.ts';
