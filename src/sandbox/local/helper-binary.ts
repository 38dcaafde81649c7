import { createHash } from 'node:crypto';
import { access, mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runHostCommand } from '../images/host-command.ts';

const SOURCE = fileURLToPath(new URL('./helper/sandgym-helper.c', import.meta.url));

/**
 * sandgym-helper (see helper/sandgym-helper.c), compiled once per source version into
 * `<home>/bin/sandgym-helper-<hash>`. Undefined when the host has no working C compiler: sandboxes then
 * start and exec through a shell and util-linux tools, a few milliseconds slower each.
 */
export async function prepareHelper(home: string, compiler = 'cc'): Promise<string | undefined> {
  const source = await readFile(SOURCE);
  const hash = createHash('sha256').update(source).digest('hex').slice(0, 16);
  const binary = join(home, 'bin', `sandgym-helper-${hash}`);
  if (
    await access(binary).then(
      () => true,
      () => false,
    )
  )
    return binary;
  await mkdir(join(home, 'bin'), { recursive: true });
  const tmp = `${binary}.${process.pid}.tmp`;
  try {
    await runHostCommand(compiler, ['-O2', '-o', tmp, SOURCE], { timeoutMs: 60_000 });
    await rename(tmp, binary);
    // Older versions' binaries: a process still running one keeps its copy open, so deleting is safe.
    const others = (await readdir(join(home, 'bin'))).filter((f) => /^sandgym-helper-[0-9a-f]{16}$/.test(f));
    await Promise.all(
      others.filter((f) => join(home, 'bin', f) !== binary).map((f) => rm(join(home, 'bin', f))),
    );
    return binary;
  } catch {
    await rm(tmp, { force: true });
    return undefined;
  }
}
