import { normalizeImageName } from '../sandbox/images/index.ts';
import type { ApiKeyRecord } from './api-keys.ts';
import { HttpError } from './http-io.ts';
import { SNAPSHOT_PREFIX } from './new-sandbox.ts';
import type { ServerContext } from './server-context.ts';

/**
 * E2B's snapshot listing (GET /snapshots) and deletion (DELETE /templates/{id}) over the provider's
 * images: a key's snapshots are the images `sandgym-serve/<key id>/…`, which no other key sees. The
 * sandbox a snapshot came from is known for those made since the server started (`sources`), so a
 * `sandboxID` filter lists only those.
 */
export async function listSnapshots(ctx: ServerContext, key: ApiKeyRecord, url: URL) {
  const list = ctx.settings.provider.listImages;
  if (!list) throw new HttpError(501, `the ${ctx.settings.provider.name} provider cannot list snapshots`);
  const sandboxID = url.searchParams.get('sandboxID');
  const names = await list.call(ctx.settings.provider, `${SNAPSHOT_PREFIX}/${key.id}/`);
  return names
    .filter((n) => sandboxID === null || ctx.snapshotSources.get(n) === sandboxID)
    .map((n) => ({ snapshotID: n, names: [n] }));
}

/** Deletes one of the key's snapshots; 404 for anything else (another key's snapshot, a base image). */
export async function deleteSnapshot(
  ctx: ServerContext,
  key: ApiKeyRecord,
  templateID: string,
): Promise<void> {
  let image: string;
  try {
    image = normalizeImageName(templateID);
  } catch {
    throw new HttpError(404, `template '${templateID}' not found`);
  }
  if (!image.startsWith(`${SNAPSHOT_PREFIX}/${key.id}/`)) {
    throw new HttpError(404, `template '${templateID}' not found (only your own snapshots can be deleted)`);
  }
  const remove = ctx.settings.provider.removeImage;
  if (!remove) throw new HttpError(501, `the ${ctx.settings.provider.name} provider cannot delete snapshots`);
  if (!(await remove.call(ctx.settings.provider, image)))
    throw new HttpError(404, `template '${templateID}' not found`);
  ctx.snapshotSources.delete(image);
}
