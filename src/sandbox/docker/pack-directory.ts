import { createReadStream } from 'node:fs';
import { lstat, opendir, readlink } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';

/**
 * A host directory's contents as a tar stream, entries named `<prefix>/<relative path>`, produced as it
 * is read (a large repository never sits in memory). Directories, regular files and symlinks (kept as
 * links) are packed; sockets, fifos and devices are skipped. Owners become root: what the sandbox's
 * user sees, whatever the host uid was. With `rootMode`, the prefix directory itself gets an entry
 * (for when it does not exist yet: an entry would change an existing directory's mode).
 */
export function packDirectory(
  hostDir: string,
  prefix: string,
  options: { rootMode?: number } = {},
): tar.Pack {
  const pack = tar.pack();
  const base = prefix.replace(/^\/+|\/+$/g, '');
  const entryName = (rel: string) => posix.join(base, rel);
  (async () => {
    if (options.rootMode !== undefined && base !== '') {
      pack.entry({ name: `${base}/`, type: 'directory', mode: options.rootMode, uid: 0, gid: 0 });
    }
    await packTree(pack, hostDir, '', entryName);
    pack.finalize();
  })().catch((e: unknown) => pack.destroy(e as Error));
  return pack;
}

async function packTree(
  pack: tar.Pack,
  dir: string,
  rel: string,
  name: (rel: string) => string,
): Promise<void> {
  const entries = [];
  for await (const dirent of await opendir(join(dir, rel))) entries.push(dirent.name);
  entries.sort();
  for (const child of entries) {
    const childRel = rel ? `${rel}/${child}` : child;
    const path = join(dir, childRel);
    const st = await lstat(path);
    const common = { name: name(childRel), mode: st.mode & 0o7777, mtime: st.mtime, uid: 0, gid: 0 };
    if (st.isDirectory()) {
      pack.entry({ ...common, name: `${common.name}/`, type: 'directory' });
      await packTree(pack, dir, childRel, name);
    } else if (st.isSymbolicLink()) {
      pack.entry({ ...common, type: 'symlink', linkname: await readlink(path) });
    } else if (st.isFile()) {
      await pipeline(createReadStream(path), pack.entry({ ...common, type: 'file', size: st.size }));
    }
  }
}
