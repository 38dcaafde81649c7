import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SandgymError } from '../../errors.ts';
import type { DebootstrapRecipe } from './base-recipes.ts';
import { runHostCommand } from './host-command.ts';

export interface DebootstrapOptions {
  mirror: string;
  onLog?: (line: string) => void;
  signal?: AbortSignal;
}

/**
 * Builds a Debian root filesystem into `rootfs` (an empty directory). debootstrap runs in a private mount
 * namespace so the /proc and /sys it mounts inside the target vanish with it, even when it is killed.
 */
export async function debootstrap(recipe: DebootstrapRecipe, rootfs: string, options: DebootstrapOptions) {
  if (process.getuid?.() !== 0) {
    throw new SandgymError('building a base image runs debootstrap, which needs root; run it as root (sudo)');
  }
  const args = [
    '--mount',
    '--propagation',
    'private',
    'debootstrap',
    `--variant=${recipe.variant}`,
    `--include=${recipe.include.join(',')}`,
    recipe.suite,
    rootfs,
    options.mirror,
  ];
  try {
    await runHostCommand('unshare', args, {
      onLine: options.onLog ?? (() => {}),
      signal: options.signal,
    });
  } catch (e) {
    throw new SandgymError(
      `debootstrap of ${recipe.suite} from ${options.mirror} failed; check that the mirror is reachable, ` +
        `or set SANDGYM_DEBIAN_MIRROR to another Debian mirror`,
      { cause: e },
    );
  }
  await trimRootfs(rootfs);
}

/**
 * Drops what a sandbox never needs and what would leak the host into the image: downloaded packages and
 * package lists (apt-get update restores them where the network is on) and the host's resolv.conf.
 */
async function trimRootfs(rootfs: string): Promise<void> {
  await runHostCommand('sh', [
    '-c',
    'rm -rf "$1"/var/cache/apt/archives/*.deb "$1"/var/cache/apt/*.bin "$1"/var/lib/apt/lists/*',
    'sh',
    rootfs,
  ]);
  await rm(join(rootfs, 'etc/resolv.conf'), { force: true });
  await writeFile(join(rootfs, 'etc/resolv.conf'), '# no network in sandgym sandboxes by default\n');
  await writeFile(join(rootfs, 'etc/hostname'), 'sandbox\n');
}
