import { resolveHome } from '../images/home.ts';
import { ImageStore } from '../images/image-store.ts';

/** Why local sandbox tests cannot run here (not root, no base image), or undefined when they can. */
export async function localTestSkipReason(): Promise<string | undefined> {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return 'local sandboxes need Linux and root';
  if (!(await new ImageStore(resolveHome()).getComplete('sandgym/base'))) {
    return 'no sandgym/base image: run "sandgym images build base"';
  }
  return undefined;
}

/** Removes an image a test made, and the layers only it used. */
export async function removeTestImage(store: ImageStore, name: string): Promise<void> {
  const record = await store.remove(name);
  if (record) await store.pruneLayers(new Set(), { candidates: record.layers, minAgeMs: 0 });
}
