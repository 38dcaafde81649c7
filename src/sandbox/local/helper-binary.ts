import { createHash } from 'node:crypto';
import { access, mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SandboxError } from '../../errors.ts';
import { runHostCommand } from '../images/host-command.ts';

const SOURCE_DIR = fileURLToPath(new URL('./helper/', import.meta.url));

/**
 * sandgym-helper (helper/*.c, one program), compiled once per source version into
 * `<home>/bin/sandgym-helper-<hash>`. It is the only way local sandboxes start and run commands, so
 * every isolation property is enforced in one place; a host that cannot compile it gets an error saying
 * what to install, never a weaker sandbox.
 */
export async function prepareHelper(home: string, compiler = 'cc'): Promise<string> {
  const names = (await readdir(SOURCE_DIR)).filter((f) => f.endsWith('.c')).sort();
  const sources = await Promise.all(names.map((f) => readFile(join(SOURCE_DIR, f), 'utf8')));
  const hash = createHash('sha256');
  for (const [k, name] of names.entries()) hash.update(`${name}\0${sources[k]}\0`);
  const binary = join(home, 'bin', `sandgym-helper-${hash.digest('hex').slice(0, 16)}`);
  if (
    await access(binary).then(
      () => true,
      () => false,
    )
  )
    return binary;
  await mkdir(join(home, 'bin'), { recursive: true });
  const tmp = `${binary}.${process.pid}.tmp`;
  const libs = sources.some((s) => s.includes('<seccomp.h>')) ? ['-lseccomp'] : [];
  try {
    await runHostCommand(compiler, ['-O2', '-o', tmp, ...names.map((f) => join(SOURCE_DIR, f)), ...libs], {
      timeoutMs: 60_000,
    });
  } catch (e) {
    await rm(tmp, { force: true });
    throw new SandboxError(
      undefined,
      `the local provider could not compile its helper (${compiler}): ${(e as Error).message.trim()}. ` +
        'Install a C compiler and headers (apt-get install gcc libc6-dev libseccomp-dev) or run scripts/setup.sh',
      { cause: e },
    );
  }
  await rename(tmp, binary);
  // Older versions' binaries: a process still running one keeps its copy open, so deleting is safe.
  const others = (await readdir(join(home, 'bin'))).filter((f) => /^sandgym-helper-[0-9a-f]{16}$/.test(f));
  await Promise.all(
    others.filter((f) => join(home, 'bin', f) !== binary).map((f) => rm(join(home, 'bin', f))),
  );
  return binary;
}
