import { chmod, lstat, opendir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/** What `sanitizeLayer` changed. */
export interface SanitizeReport {
  /** Regular files that lost their setuid/setgid bits. */
  strippedSetid: number;
  /** Device nodes removed (an overlay whiteout, a 0:0 character device, is not one of them). */
  removedDevices: number;
}

/**
 * Makes a layer copied out of a sandbox safe to keep on the host's disk: a sandbox's root can make a
 * setuid-root shell or a node of the host's disk, and `cp -a` keeps both. Regular files lose setuid and
 * setgid; block and character devices go, except overlayfs whiteouts (character device 0:0), which
 * record deletions. Links are never followed (lstat, and chmod only on what lstat called a file): no
 * one else writes the tree meanwhile (the layer directory is the caller's, 0700).
 */
export async function sanitizeLayer(rootfs: string): Promise<SanitizeReport> {
  const report: SanitizeReport = { strippedSetid: 0, removedDevices: 0 };
  const walk = async (dir: string): Promise<void> => {
    for await (const entry of await opendir(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) {
        const { mode } = await lstat(path);
        if (mode & 0o6000) {
          await chmod(path, mode & 0o1777);
          report.strippedSetid++;
        }
      } else if (entry.isBlockDevice() || (entry.isCharacterDevice() && (await lstat(path)).rdev !== 0)) {
        await rm(path);
        report.removedDevices++;
      }
    }
  };
  await walk(rootfs);
  return report;
}
