import { spawn } from 'node:child_process';
import type Docker from 'dockerode';
import { SandgymError } from '../../errors.ts';
import { LABELS } from '../types.ts';
import { runHostCommand } from './host-command.ts';
import type { ImageRecord, ImageStore } from './image-store.ts';

/** Label on Docker images sandgym imported: the recipe key of the local layer they were made from. */
export const RECIPE_LABEL = 'sandgym.recipe';

/**
 * A Docker client when an engine answers within `timeoutMs`, else undefined. dockerode loads only here,
 * so the local provider does not pay for it unless an image has to come from (or go to) Docker.
 */
export async function connectDocker(timeoutMs = 2000): Promise<Docker | undefined> {
  const { default: Dockerode } = await import('dockerode');
  const docker = new Dockerode();
  try {
    // The typings omit ping's options; dockerode does take an abortSignal there.
    const pingable = docker as unknown as { ping(o: { abortSignal: AbortSignal }): Promise<unknown> };
    await pingable.ping({ abortSignal: AbortSignal.timeout(timeoutMs) });
    return docker;
  } catch {
    return undefined;
  }
}

/** Whether Docker holds `name` built from the recipe `key`. */
export async function dockerHasRecipe(docker: Docker, name: string, key: string): Promise<boolean> {
  try {
    const info = await docker.getImage(name).inspect();
    return info.Config?.Labels?.[RECIPE_LABEL] === key;
  } catch {
    return false;
  }
}

/** Reads a Docker progress stream to its end; an `{"error": …}` line becomes a thrown error. */
async function drainProgress(stream: NodeJS.ReadableStream, what: string): Promise<void> {
  let text = '';
  for await (const chunk of stream) text += chunk.toString();
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const message = (JSON.parse(line) as { error?: string }).error;
    if (message) throw new SandgymError(`${what}: ${message}`);
  }
}

/**
 * Imports a single-layer image (a base image's rootfs) into Docker under the same name, labelled with its
 * recipe key so that a later build can tell the copy is current.
 */
export async function importToDocker(docker: Docker, store: ImageStore, record: ImageRecord): Promise<void> {
  if (record.layers.length !== 1) {
    throw new SandgymError(
      `image "${record.name}" has ${record.layers.length} layers; only base images import`,
    );
  }
  const tar = spawn('tar', ['-C', store.layerRootfs(record.layers[0]!), '--numeric-owner', '-cf', '-', '.'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tarError = '';
  tar.stderr.on('data', (b: Buffer) => {
    tarError += b.toString();
  });
  const tarDone = new Promise<void>((resolve, reject) =>
    tar.on('close', (code) =>
      code === 0 ? resolve() : reject(new SandgymError(`tar of the rootfs: ${tarError}`)),
    ),
  );
  const [repo, tag] = splitTag(record.name);
  const changes = [
    `LABEL ${RECIPE_LABEL}=${record.recipeKey}`,
    ...Object.entries(record.env).map(([k, v]) => `ENV ${k}=${JSON.stringify(v)}`),
    `WORKDIR ${record.workdir}`,
    'CMD ["/bin/bash"]',
  ];
  const response = await docker.importImage(tar.stdout, { repo, tag, changes });
  await Promise.all([drainProgress(response, `docker import of ${record.name}`), tarDone]);
}

function splitTag(name: string): [string, string] {
  const colon = name.lastIndexOf(':');
  return colon > name.lastIndexOf('/') ? [name.slice(0, colon), name.slice(colon + 1)] : [name, 'latest'];
}

/**
 * Copies a Docker image's filesystem into the local cache as one layer (once per image id), keeping its
 * Env and WorkingDir. Returns undefined when Docker does not have the image.
 */
export async function exportFromDocker(
  docker: Docker,
  store: ImageStore,
  name: string,
  runId: string,
): Promise<ImageRecord | undefined> {
  let info: Docker.ImageInspectInfo;
  try {
    info = await docker.getImage(name).inspect();
  } catch {
    return undefined;
  }
  const key = `docker-${info.Id.replace(/^sha256:/, '')}`;
  if (!(await store.hasLayer(key))) await exportLayer(docker, store, name, key, runId);
  const env = Object.fromEntries(
    (info.Config?.Env ?? []).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
  const record: ImageRecord = {
    name,
    layers: [key],
    env,
    workdir: info.Config?.WorkingDir || '/',
    createdAt: new Date().toISOString(),
    recipeKey: `docker:${info.Id}`,
    source: 'docker',
  };
  await store.put(record);
  return record;
}

async function exportLayer(docker: Docker, store: ImageStore, name: string, key: string, runId: string) {
  // Labelled like a sandbox so that the docker provider's gc removes it if we die before removing it.
  const container = await docker.createContainer({
    Image: name,
    Entrypoint: ['/bin/true'],
    Cmd: [],
    Labels: {
      [LABELS.run]: runId,
      [LABELS.createdAt]: String(Date.now()),
      [LABELS.ttlMs]: String(3_600_000),
    },
  });
  const dir = await store.newLayerDir(runId);
  try {
    const stream = (await container.export()) as NodeJS.ReadableStream & import('node:stream').Readable;
    await runHostCommand('tar', ['-C', `${dir}/rootfs`, '--numeric-owner', '-xf', '-'], { stdin: stream });
    await store.commitLayer(dir, key, 'docker');
  } catch (e) {
    await store.discardLayerDir(dir);
    throw new SandgymError(`copying the filesystem of Docker image "${name}" failed`, { cause: e });
  } finally {
    await container.remove({ force: true }).catch(() => {});
  }
}
