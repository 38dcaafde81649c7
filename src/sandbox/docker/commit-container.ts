import type Docker from 'dockerode';
import type { DockerApi } from './docker-api.ts';

/** Commits copy the whole writable layer; a big one takes a while on a busy host. */
const COMMIT_TIMEOUT_MS = 10 * 60_000;

/**
 * Saves a container's filesystem as the image `repo:tag` (`docker commit`), with `labels` merged over the
 * labels it inherits from the container. The container is paused meanwhile, so the image is one
 * consistent state; execs started during the pause wait for it (see exec-session.ts).
 */
export async function commitContainer(
  api: DockerApi,
  container: Docker.Container,
  target: { repo: string; tag: string; labels: Record<string, string> },
  sandboxId: string,
): Promise<string> {
  // dockerode sends `_query` as the query string and `_body` as the JSON body (the container config
  // to merge); the container id must then be in the query explicitly.
  const result = (await api.call(
    'container commit',
    (abortSignal) =>
      container.commit({
        _query: { container: container.id, repo: target.repo, tag: target.tag, pause: true },
        _body: { Labels: target.labels },
        abortSignal,
      }),
    { sandboxId, timeoutMs: COMMIT_TIMEOUT_MS },
  )) as { Id: string };
  return result.Id;
}

/** `repo:tag` → `{repo, tag}`; the tag defaults to `latest`. */
export function splitImageRef(ref: string): { repo: string; tag: string } {
  const colon = ref.lastIndexOf(':');
  return colon > ref.lastIndexOf('/')
    ? { repo: ref.slice(0, colon), tag: ref.slice(colon + 1) }
    : { repo: ref, tag: 'latest' };
}
