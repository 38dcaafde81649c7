import { join } from 'node:path';
import type { Command } from 'commander';
import { resolveHome } from '../../sandbox/images/index.ts';
import { AgsKeyStore, type AgsOptions, addAgsKey, ToolStore } from '../../server/index.ts';

/** `sandgym serve`'s AgentSandbox control-plane flags. */
export interface AgsServeFlags {
  addAgsKey?: string | true;
  agsKeysFile?: string;
  agsRegion: string;
}

export function agsServeFlags(serve: Command): Command {
  return serve
    .option(
      '--add-ags-key [label]',
      'make a Tencent Cloud API key pair (SecretId/SecretKey) for the AGS control plane, print it once, exit',
    )
    .option('--ags-keys-file <path>', 'AGS key pairs (default: <SANDGYM_HOME>/serve/ags-keys, mode 0600)')
    .option('--ags-region <region>', 'the region the AGS control plane answers as', 'ap-guangzhou');
}

const keysPath = (f: AgsServeFlags) => f.agsKeysFile ?? join(resolveHome(), 'serve', 'ags-keys');

/** Handles --add-ags-key: true when it did (and serve should exit). */
export async function addAgsKeyIfAsked(f: AgsServeFlags): Promise<boolean> {
  if (f.addAgsKey === undefined) return false;
  const path = keysPath(f);
  const { secretId, secretKey } = await addAgsKey(path, f.addAgsKey === true ? '' : f.addAgsKey);
  process.stdout.write(
    `new AGS key pair (the secret is shown only now; it is kept in ${path}):\n` +
      `TENCENTCLOUD_SECRET_ID=${secretId}\nTENCENTCLOUD_SECRET_KEY=${secretKey}\n` +
      `clients: AGS_ENDPOINT=<server URL> AGS_REGION=${f.agsRegion}\n`,
  );
  return true;
}

/** The control plane's options when AGS keys exist, else undefined (the server speaks E2B only). */
export async function agsServeOptions(f: AgsServeFlags): Promise<AgsOptions | undefined> {
  const keys = await AgsKeyStore.fromFile(keysPath(f));
  if (keys.size === 0) return undefined;
  const tools = await ToolStore.open(join(resolveHome(), 'serve', 'ags-tools.json'));
  return { keys, tools, region: f.agsRegion };
}
