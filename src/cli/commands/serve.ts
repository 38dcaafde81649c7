import { join } from 'node:path';
import type { Command } from 'commander';
import { ConfigError } from '../../errors.ts';
import { resolveHome } from '../../sandbox/images/index.ts';
import { createProvider } from '../../sandbox/index.ts';
import { addApiKey, KeyStore, SandboxServer } from '../../server/index.ts';
import { gcProviders } from './gc.ts';
import { type AgsServeFlags, addAgsKeyIfAsked, agsServeFlags, agsServeOptions } from './serve-ags.ts';

const SERVE_PROVIDERS = ['local', 'docker'];

interface ServeFlags extends AgsServeFlags {
  host: string;
  port: string;
  provider: string;
  keysFile?: string;
  addKey?: string | true;
  domain?: string;
  maxSandboxesPerKey: string;
  createsPerSecond: string;
  maxTimeoutS: string;
  maxUploadMb: string;
  allowNetwork?: boolean;
  template: string[];
}

export function registerServeCommand(program: Command): void {
  const serve = program
    .command('serve')
    .description(
      'Serve sandboxes of this host over the E2B API (lifecycle REST + envd), for the e2b provider, the ' +
        'official E2B SDKs (E2B_API_URL = E2B_SANDBOX_URL = the printed URL) and other hosts.',
    )
    .option('--host <address>', 'address to listen on (put a TLS proxy in front to expose it)', '127.0.0.1')
    .option('--port <n>', 'port to listen on (0: any free port)', '3000')
    .option('--provider <name>', 'where sandboxes run: local or docker', 'local')
    .option('--keys-file <path>', 'file of API key hashes (default: <SANDGYM_HOME>/serve/keys)')
    .option('--add-key [label]', 'make a new API key, print it once, store its hash, and exit')
    .option('--domain <domain>', 'also route hosts <port>-<sandbox id>.<domain> to sandboxes')
    .option('--max-sandboxes-per-key <n>', 'sandboxes one key may hold at once', '20')
    .option('--creates-per-second <n>', 'creates and forks per second per key', '10')
    .option('--max-timeout-s <n>', 'the longest lifetime a sandbox may be given', '86400')
    .option('--max-upload-mb <n>', 'largest file upload', '1024')
    .option('--allow-network', 'let clients ask for sandboxes with network access')
    .option(
      '--template <name=image>',
      'a template name that stands for an image (repeatable; "base" is sandgym/base unless set)',
      (v: string, all: string[]) => [...all, v],
      [] as string[],
    );
  agsServeFlags(serve).action(async (flags: ServeFlags) => {
    await serveCommand(flags);
  });
}

async function serveCommand(flags: ServeFlags): Promise<void> {
  const keysFile = flags.keysFile ?? join(resolveHome(), 'serve', 'keys');
  if (flags.addKey !== undefined) {
    const { key, id } = await addApiKey(keysFile, flags.addKey === true ? '' : flags.addKey);
    process.stdout.write(
      `new API key ${id} (shown only now; its hash is in ${keysFile}):\n${key}\n` +
        'clients: E2B_API_KEY=<key> E2B_API_URL=<server URL> E2B_SANDBOX_URL=<server URL>\n',
    );
    return;
  }
  if (await addAgsKeyIfAsked(flags)) return;
  if (!SERVE_PROVIDERS.includes(flags.provider)) {
    throw new ConfigError(
      `sandgym serve runs sandboxes on ${SERVE_PROVIDERS.join(' or ')}, not "${flags.provider}"`,
    );
  }
  const keys = await KeyStore.fromFile(keysFile);
  if (keys.size === 0) {
    throw new ConfigError(`no API keys in ${keysFile}: make one with "sandgym serve --add-key"`);
  }
  // Sandboxes of an earlier server that crashed are orphans now: remove them before serving.
  await gcProviders([flags.provider]);
  const ags = await agsServeOptions(flags);
  const provider = await createProvider(flags.provider);
  const log = (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`);
  let server: SandboxServer;
  try {
    server = await SandboxServer.start({
      provider,
      keys,
      host: flags.host,
      port: integer('--port', flags.port, 0),
      domain: flags.domain,
      maxSandboxesPerKey: integer('--max-sandboxes-per-key', flags.maxSandboxesPerKey, 1),
      createsPerSecondPerKey: positive('--creates-per-second', flags.createsPerSecond),
      maxTimeoutS: integer('--max-timeout-s', flags.maxTimeoutS, 1),
      maxUploadBytes: integer('--max-upload-mb', flags.maxUploadMb, 1) * 1024 * 1024,
      allowNetwork: flags.allowNetwork ?? false,
      templates: templateFlags(flags.template),
      ...(ags && { ags }),
      log,
    });
  } catch (e) {
    await provider.close();
    throw e;
  }
  log(
    `sandgym serve: ${server.url} (provider ${flags.provider}, ${keys.size} key(s) from ${keysFile}); ` +
      `clients: E2B_API_URL=${server.url} E2B_SANDBOX_URL=${server.url}` +
      (ags ? `; AGS control plane (region ${ags.region}): AGS_ENDPOINT=${server.url}` : ''),
  );
  const caps = server.settings.hostCaps;
  const gib = (bytes: number) => `${Math.round(bytes / 1024 ** 3)} GiB`;
  log(
    `host-wide caps (all keys together; past one a create is a 429): ${caps.sandboxes} sandboxes, ` +
      `${caps.pids} processes, ${gib(caps.memoryBytes)} of memory limits, ${gib(caps.diskBytes)} of disk limits`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  log(`shutting down: closing ${server.sandboxCount} sandbox(es)`);
  await server.close();
  await provider.close();
}

function integer(flag: string, value: string, min: number): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min)
    throw new ConfigError(`${flag} must be an integer of at least ${min}, got "${value}"`);
  return n;
}

function positive(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0)
    throw new ConfigError(`${flag} must be a positive number, got "${value}"`);
  return n;
}

/** `--template name=image` flags as a map. */
function templateFlags(values: string[]): Record<string, string> {
  const templates: Record<string, string> = {};
  for (const v of values) {
    const m = /^([^=\s]+)=(\S+)$/.exec(v);
    if (!m) throw new ConfigError(`--template takes name=image, got "${v}"`);
    templates[m[1]!] = m[2]!;
  }
  return templates;
}
