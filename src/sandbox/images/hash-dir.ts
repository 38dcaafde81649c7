import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, readdir, readlink } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * sha256 over a directory tree's content: every entry's relative path, type and permission bits, file
 * bytes and symlink targets, in sorted order. Owners and times are left out: an upload makes everything
 * root's, and a fresh checkout of the same files must hash the same.
 */
export async function hashDirectory(root: string): Promise<string> {
  const hash = createHash('sha256');
  async function walk(rel: string): Promise<void> {
    const names = (await readdir(join(root, rel))).sort();
    for (const name of names) {
      const path = rel ? `${rel}/${name}` : name;
      const abs = join(root, path);
      const st = await lstat(abs);
      const mode = (st.mode & 0o7777).toString(8);
      if (st.isDirectory()) {
        hash.update(`d ${mode} ${path}\0`);
        await walk(path);
      } else if (st.isSymbolicLink()) {
        hash.update(`l ${path}\0${await readlink(abs)}\0`);
      } else if (st.isFile()) {
        hash.update(`f ${mode} ${st.size} ${path}\0`);
        for await (const chunk of createReadStream(abs)) hash.update(chunk as Buffer);
      } else {
        hash.update(`o ${mode} ${path}\0`);
      }
    }
  }
  await walk('');
  return hash.digest('hex');
}
