import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { SandboxError } from '../../errors.ts';

/** Absolute paths of the host programs the local provider runs. */
export interface HostTools {
  bwrap: string;
  /** The pid-1 of every sandbox: reaps orphans and survives `kill -9 -1` from inside. */
  catatonit: string;
  /** Formats each sandbox's disk image. */
  mkfs: string;
  /** sandgym-helper, compiled here (helper-binary.ts): it starts and enters every sandbox. */
  helper: string;
}

const SEARCH = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];
type RequiredTool = Exclude<keyof HostTools, 'helper'>;

const EXTRA: Partial<Record<RequiredTool, string[]>> = { catatonit: ['/usr/libexec/podman'] };
const NAMES: Partial<Record<RequiredTool, string>> = { mkfs: 'mkfs.ext4' };
const PACKAGES: Record<RequiredTool, string> = {
  bwrap: 'bubblewrap',
  catatonit: 'catatonit',
  mkfs: 'e2fsprogs',
};

function find(name: string, dirs: readonly string[]): string | undefined {
  for (const dir of dirs) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {}
  }
  return undefined;
}

/**
 * Checks that this host can run local sandboxes and finds the tools. Fails with what to do instead of
 * quietly running with weaker isolation.
 */
export function findHostTools(pathEnv: string | undefined): Omit<HostTools, 'helper'> {
  if (process.platform !== 'linux') {
    throw new SandboxError(
      undefined,
      `the local provider needs Linux; use --provider docker on ${process.platform}`,
    );
  }
  if (process.getuid?.() !== 0) {
    throw new SandboxError(
      undefined,
      'the local provider needs root: it mounts overlayfs and ext4 images and writes cgroup limits. Run sandgym as ' +
        'root, or use --provider docker (running unprivileged would need user namespaces, a delegated ' +
        'writable cgroup and fuse-overlayfs, which sandgym does not support yet)',
    );
  }
  const dirs = [...(pathEnv ?? '').split(':').filter((d) => d.startsWith('/')), ...SEARCH];
  const tools: Partial<Record<RequiredTool, string>> = {};
  const missing: string[] = [];
  for (const name of Object.keys(PACKAGES) as RequiredTool[]) {
    const path = find(NAMES[name] ?? name, [...dirs, ...(EXTRA[name] ?? [])]);
    if (path) tools[name] = path;
    else missing.push(NAMES[name] ?? name);
  }
  if (missing.length > 0) {
    const packages = [
      ...new Set((Object.keys(PACKAGES) as RequiredTool[]).filter((k) => missing.includes(NAMES[k] ?? k))),
    ]
      .map((k) => PACKAGES[k])
      .join(' ');
    throw new SandboxError(
      undefined,
      `the local provider needs ${missing.join(', ')}; install them (apt-get install ${packages}) ` +
        'or run scripts/setup.sh',
    );
  }
  return tools as Record<RequiredTool, string>;
}
