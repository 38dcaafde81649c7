import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SandboxError } from '../../errors.ts';
import { runHostCommand } from '../images/host-command.ts';

const STALE_MS = 86_400_000;
/**
 * Static: every command in a sandbox execs the helper, and the dynamic loader's work (libc, libseccomp)
 * cost ~0.5 ms of each exec here (500 runs: 3.4 vs 2.9 ms).
 */
const CFLAGS = ['-O2', '-static'];
const SOURCE_DIR = fileURLToPath(new URL('./helper/', import.meta.url));

/**
 * sandgym-helper (helper/*.c, one program), compiled once per source version into
 * `<home>/bin/sandgym-helper-<hash>`. It is the only way local sandboxes start and run commands, so
 * every isolation property is enforced in one place; a host that cannot compile it gets an error saying
 * what to install, never a weaker sandbox.
 */
export async function prepareHelper(home: string, compiler = 'cc'): Promise<string> {
  // Headers count for the version: a change in one changes the program.
  const names = (await readdir(SOURCE_DIR)).filter((f) => /\.[ch]$/.test(f)).sort();
  const sources = await Promise.all(names.map((f) => readFile(join(SOURCE_DIR, f), 'utf8')));
  const hash = createHash('sha256').update(`${CFLAGS.join(' ')}\0`);
  for (const [k, name] of names.entries()) hash.update(`${name}\0${sources[k]}\0`);
  const binary = join(home, 'bin', `sandgym-helper-${hash.digest('hex').slice(0, 16)}`);
  // Reused: its mtime says it is in use, so another version's pruning below leaves it alone.
  if (
    await utimes(binary, new Date(), new Date()).then(
      () => true,
      () => false,
    )
  )
    return binary;
  await mkdir(join(home, 'bin'), { recursive: true });
  const tmp = `${binary}.${process.pid}.tmp`;
  try {
    const prebuilt = await prebuildSeccomp(compiler, tmp);
    try {
      const define = `-DSANDGYM_SECCOMP_PREBUILT="${prebuilt}"`;
      await runHostCommand(
        compiler,
        [
          ...CFLAGS,
          define,
          '-o',
          tmp,
          ...names.filter((f) => f.endsWith('.c')).map((f) => join(SOURCE_DIR, f)),
          '-lseccomp',
        ],
        { timeoutMs: 60_000 },
      );
    } finally {
      await rm(prebuilt, { force: true });
    }
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
  // Other versions: those unused for a day go (sandgym processes of other checkouts may share this home;
  // a running fork server execs its own binary through an fd, so even a removal under it is harmless).
  const bin = join(home, 'bin');
  const others = (await readdir(bin)).filter((f) => /^sandgym-helper-[0-9a-f]{16}$/.test(f));
  for (const f of others) {
    const path = join(bin, f);
    const s = await stat(path).catch(() => undefined);
    if (path !== binary && s && Date.now() - s.mtimeMs > STALE_MS) await rm(path, { force: true });
  }
  return binary;
}

/**
 * The seccomp filter as C initializers (seccomp.c's `bpf-c` mode) in `<tmp>.seccomp.h`, for the helper to
 * compile in: every command runs a fresh helper, and building the filter there would cost it
 * milliseconds (see seccomp.c). Returns the file's path.
 */
async function prebuildSeccomp(compiler: string, tmp: string): Promise<string> {
  const generator = `${tmp}.seccomp`;
  try {
    const source = join(SOURCE_DIR, 'seccomp.c');
    await runHostCommand(compiler, ['-O2', '-DSANDGYM_SECCOMP_MAIN', '-o', generator, source, '-lseccomp'], {
      timeoutMs: 60_000,
    });
    const { stdout } = await runHostCommand(generator, ['bpf-c'], { timeoutMs: 60_000 });
    await writeFile(`${generator}.h`, stdout);
    return `${generator}.h`;
  } finally {
    await rm(generator, { force: true });
  }
}
