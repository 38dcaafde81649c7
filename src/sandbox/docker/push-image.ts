import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { ConfigError, SandboxError } from '../../errors.ts';
import { engineMessage } from './docker-api.ts';
import { registryAuth } from './registry-auth.ts';

export interface RegistryPush {
  /** The image as the dataset names it. */
  image: string;
  /** The reference a remote service pulls: the image itself, or its copy in the registry. */
  ref: string;
  /** `pushed`: layers went up; `up to date`: the registry had them all; `remote`: came from a registry. */
  action: 'pushed' | 'up to date' | 'remote';
}

/** `host[:port]/namespace` → validated, without a trailing slash. */
export function parseRegistry(registry: string): string {
  const trimmed = registry.replace(/\/+$/, '');
  if (!/^[a-z0-9.-]+(:\d+)?(\/[a-z0-9._-]+)+$/.test(trimmed))
    throw new ConfigError(
      `--registry must be host[:port]/namespace (e.g. ccr.ccs.tencentyun.com/team), got "${registry}"`,
    );
  return trimmed;
}

/** `sandgym/base:latest` in `reg:5000/ns` → `reg:5000/ns/sandgym/base:latest` (the tag defaults to latest). */
export function registryRef(image: string, registry: string): string {
  const at = image.indexOf('@');
  const bare = at < 0 ? image : image.slice(0, at);
  const lastSlash = bare.lastIndexOf('/');
  const colon = bare.lastIndexOf(':');
  const hasTag = colon > lastSlash;
  const repo = hasTag ? bare.slice(0, colon) : bare;
  const tag = hasTag ? bare.slice(colon + 1) : 'latest';
  return `${registry}/${repo.replace(/^docker\.io\//, '')}:${tag}`;
}

/**
 * Makes `image` pullable from `registry`: an image the engine has only locally (no repo digest from
 * anywhere but this registry) is tagged into it and pushed, with credentials from the Docker config;
 * an image the engine pulled from some registry, or does not have, is left as is (the service pulls it
 * from where it came). A failed push is an error carrying the registry's own message.
 */
export async function ensureInRegistry(
  docker: Docker,
  image: string,
  registry: string,
  dockerConfigPath: string,
): Promise<RegistryPush> {
  let digests: string[];
  try {
    digests = ((await docker.getImage(image).inspect()) as { RepoDigests?: string[] }).RepoDigests ?? [];
  } catch (e) {
    if ((e as { statusCode?: number }).statusCode === 404) return { image, ref: image, action: 'remote' };
    throw e;
  }
  if (digests.some((d) => !d.startsWith(`${registry}/`))) return { image, ref: image, action: 'remote' };
  const ref = registryRef(image, registry);
  const colon = ref.lastIndexOf(':');
  const repo = ref.slice(0, colon);
  const tag = ref.slice(colon + 1);
  const auth = await registryAuth(ref, dockerConfigPath);
  let pushedLayers = 0;
  try {
    await docker.getImage(image).tag({ repo, tag });
    const stream = (await docker.getImage(ref).push({ tag, ...(auth && { authconfig: auth }) })) as Readable;
    for await (const event of pushEvents(stream)) if (event.status === 'Pushed') pushedLayers++;
  } catch (e) {
    // The registry's name for the image is only for the push: a failed push leaves no stray tag.
    await docker
      .getImage(ref)
      .remove({ noprune: true })
      .catch(() => {});
    throw new SandboxError(
      undefined,
      `pushing "${image}" to ${registry} as ${ref} failed: ${engineMessage(e)}; ` +
        `check the registry's address and run "docker login ${registry.split('/')[0]}" if it needs credentials`,
      { cause: e },
    );
  }
  return { image, ref, action: pushedLayers > 0 ? 'pushed' : 'up to date' };
}

/** The engine's push progress, one JSON object a line; an `error` line (refused, unauthorized) throws. */
async function* pushEvents(stream: Readable): AsyncGenerator<{ status?: string }> {
  let buffered = '';
  const parse = (line: string) => {
    const event = JSON.parse(line) as { status?: string; error?: string; errorDetail?: { message?: string } };
    if (event.error) throw new Error(event.errorDetail?.message ?? event.error);
    return event;
  };
  for await (const chunk of stream) {
    buffered += (chunk as Buffer).toString('utf8');
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) yield parse(line);
  }
  if (buffered.trim()) yield parse(buffered);
}
