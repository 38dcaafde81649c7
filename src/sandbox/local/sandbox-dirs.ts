import { readFileSync, rmSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { runHostCommand } from '../images/host-command.ts';
import { readMeta, type SandboxMeta } from './sandbox-meta.ts';

/** Every `<home>/sandboxes/<id>` directory, with its meta when readable. */
export async function listSandboxDirs(sandboxesDir: string): Promise<{ dir: string; meta?: SandboxMeta }[]> {
  const names = await readdir(sandboxesDir).catch(() => [] as string[]);
  return Promise.all(
    names.map(async (name) => {
      const dir = join(sandboxesDir, name);
      const meta = await readMeta(dir);
      return meta ? { dir, meta } : { dir };
    }),
  );
}

/** Layers under the overlays of the sandboxes listed in `sandboxesDir` (they must not be deleted). */
export async function layersInUse(sandboxesDir: string): Promise<Set<string>> {
  return new Set((await listSandboxDirs(sandboxesDir)).flatMap((s) => s.meta?.layers ?? []));
}

export async function ageMs(path: string, nowMs = Date.now()): Promise<number> {
  const s = await stat(path).catch(() => undefined);
  return s ? nowMs - s.mtimeMs : 0;
}

/** Mount points at or under `dir` in this process's mount namespace, deepest first. */
export function mountsUnder(dir: string): string[] {
  const prefix = `${dir}/`;
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[4])
    .filter((m): m is string => m !== undefined)
    .map((m) => m.replace(/\\(\d{3})/g, (_, o: string) => String.fromCharCode(Number.parseInt(o, 8))))
    .filter((m) => m === dir || m.startsWith(prefix))
    .sort((a, b) => b.length - a.length);
}

/**
 * Removes a sandbox directory. Its mounts live in a private namespace, so none should show here; one that
 * does (left by an older sandgym, or by hand) is detached first, so deleting never reaches into a mount.
 */
export async function removeSandboxDir(dir: string): Promise<void> {
  for (const mount of mountsUnder(dir)) await runHostCommand('umount', ['-l', mount]);
  // Synchronous: two entries, fewer syscalls than the threadpool hops an async rm would take for them.
  rmSync(dir, { recursive: true, force: true });
}
