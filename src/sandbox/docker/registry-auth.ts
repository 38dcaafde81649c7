import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';

/** Docker Hub's key in config.json and its credential helpers' server URL. */
const DOCKER_HUB_KEY = 'https://index.docker.io/v1/';
const DOCKER_HUB_HOSTS = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io']);

/** Credentials in the shape of the engine's X-Registry-Auth header. */
export interface RegistryAuth {
  serveraddress: string;
  username?: string;
  password?: string;
  identitytoken?: string;
}

/** Runs `docker-credential-<helper> get` with `serverUrl` on stdin; resolves its stdout. */
export type CredentialHelperRunner = (helper: string, serverUrl: string) => Promise<string>;

interface DockerConfigFile {
  auths?: Record<string, { auth?: string; identitytoken?: string }>;
  credsStore?: string;
  credHelpers?: Record<string, string>;
}

/** The registry host of an image reference (`docker.io` when the first component names no host). */
export function registryHost(image: string): string {
  const slash = image.indexOf('/');
  const first = slash < 0 ? '' : image.slice(0, slash);
  const isHost = first.includes('.') || first.includes(':') || first === 'localhost';
  return !isHost || DOCKER_HUB_HOSTS.has(first) ? 'docker.io' : first;
}

/**
 * The credentials for pulling `image`, read the way the docker CLI reads them from its config.json:
 * a per-registry `credHelpers` entry, else the `credsStore`, else an inline `auths` entry. Undefined
 * means an anonymous pull (no config file, or nothing for this registry).
 */
export async function registryAuth(
  image: string,
  configPath: string,
  runHelper: CredentialHelperRunner = runCredentialHelper,
): Promise<RegistryAuth | undefined> {
  let config: DockerConfigFile;
  try {
    config = JSON.parse(await readFile(configPath, 'utf8')) as DockerConfigFile;
  } catch {
    return undefined;
  }
  const host = registryHost(image);
  const serverUrl = host === 'docker.io' ? DOCKER_HUB_KEY : host;
  const helper = config.credHelpers?.[host] ?? config.credsStore;
  if (helper) {
    const fromHelper = await helperAuth(helper, serverUrl, runHelper);
    if (fromHelper) return fromHelper;
  }
  const entry = Object.entries(config.auths ?? {}).find(([key]) => keyHost(key) === host)?.[1];
  if (!entry) return undefined;
  if (entry.identitytoken) return { serveraddress: serverUrl, identitytoken: entry.identitytoken };
  if (!entry.auth) return undefined;
  const decoded = Buffer.from(entry.auth, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { serveraddress: serverUrl, username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** `https://index.docker.io/v1/` → `docker.io`; `https://ghcr.io` → `ghcr.io`; `quay.io` → `quay.io`. */
function keyHost(key: string): string {
  const host = key.replace(/^[a-z]+:\/\//, '').split('/')[0] ?? '';
  return DOCKER_HUB_HOSTS.has(host) ? 'docker.io' : host;
}

async function helperAuth(
  helper: string,
  serverUrl: string,
  runHelper: CredentialHelperRunner,
): Promise<RegistryAuth | undefined> {
  try {
    const { Username, Secret } = JSON.parse(await runHelper(helper, serverUrl)) as {
      Username?: string;
      Secret?: string;
    };
    if (!Secret) return undefined;
    // Helpers return identity tokens under this sentinel user name, as the docker CLI expects.
    if (Username === '<token>') return { serveraddress: serverUrl, identitytoken: Secret };
    return { serveraddress: serverUrl, username: Username ?? '', password: Secret };
  } catch {
    // No helper binary, or no credentials for this server: pull anonymously, as the docker CLI does.
    return undefined;
  }
}

function runCredentialHelper(helper: string, serverUrl: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(`docker-credential-${helper}`, ['get'], { timeout: 10_000 }, (err, stdout) =>
      err ? reject(err) : resolve(stdout),
    );
    child.stdin?.end(serverUrl);
  });
}
