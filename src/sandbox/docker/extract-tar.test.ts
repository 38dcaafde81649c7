import assert from 'node:assert/strict';
import { lstat, mkdir, mkdtemp, readFile, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import tar from 'tar-stream';
import { extractTar } from './extract-tar.ts';
import { packDirectory } from './pack-directory.ts';

type Entry = {
  name: string;
  type?: 'file' | 'directory' | 'symlink' | 'link';
  body?: string;
  linkname?: string;
  mode?: number;
};

async function tarOf(entries: Entry[]): Promise<Readable> {
  const pack = tar.pack();
  for (const e of entries) {
    const { body, ...header } = e;
    if (body !== undefined) pack.entry({ type: 'file', ...header }, body);
    else pack.entry(header);
  }
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const c of pack as unknown as AsyncIterable<Buffer>) chunks.push(c);
  return Readable.from([Buffer.concat(chunks)]);
}

describe('extractTar (archives from a sandbox are untrusted)', () => {
  let root: string;
  let n = 0;
  const fresh = () => join(root, `out-${n++}`);
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'sg-extract-'));
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('extracts files, directories, symlinks and hard links, stripping the first component', async () => {
    const out = fresh();
    await extractTar(
      await tarOf([
        { name: './', type: 'directory', mode: 0o755 },
        { name: './a.txt', body: 'A', mode: 0o640 },
        { name: './ro/', type: 'directory', mode: 0o555 },
        { name: './ro/b.txt', body: 'B' },
        { name: './link', type: 'symlink', linkname: 'a.txt' },
        { name: './hard', type: 'link', linkname: './a.txt' },
      ]),
      out,
      1,
    );
    assert.equal(await readFile(join(out, 'a.txt'), 'utf8'), 'A');
    assert.equal((await stat(join(out, 'a.txt'))).mode & 0o777, 0o640);
    assert.equal(
      await readFile(join(out, 'ro/b.txt'), 'utf8'),
      'B',
      'a read-only dir is filled before its mode applies',
    );
    assert.equal((await stat(join(out, 'ro'))).mode & 0o777, 0o555);
    assert.equal(await readlink(join(out, 'link')), 'a.txt');
    assert.equal((await stat(join(out, 'hard'))).ino, (await stat(join(out, 'a.txt'))).ino);
  });

  it('refuses entries that climb out with ..', async () => {
    await assert.rejects(
      extractTar(await tarOf([{ name: './../escape.txt', body: 'x' }]), fresh(), 1),
      /climbs out/,
    );
  });

  it('never writes through a symlink the archive planted', async () => {
    const outside = join(root, 'outside');
    await mkdir(outside, { recursive: true });
    const out = fresh();
    await assert.rejects(
      extractTar(
        await tarOf([
          { name: './evil', type: 'symlink', linkname: outside },
          { name: './evil/pwned.txt', body: 'x' },
        ]),
        out,
        1,
      ),
      /not a real directory/,
    );
    await assert.rejects(lstat(join(outside, 'pwned.txt')), /ENOENT/);
  });

  it('replaces an existing link at a file entry instead of writing through it', async () => {
    const target = join(root, 'victim.txt');
    await writeFile(target, 'original');
    const out = fresh();
    await mkdir(out);
    await symlink(target, join(out, 'f.txt'));
    await extractTar(await tarOf([{ name: './f.txt', body: 'new' }]), out, 1);
    assert.equal(await readFile(target, 'utf8'), 'original');
    assert.equal(await readFile(join(out, 'f.txt'), 'utf8'), 'new');
  });

  it('drops setuid bits', async () => {
    const out = fresh();
    await extractTar(await tarOf([{ name: './s', body: '#!/bin/sh\n', mode: 0o4755 }]), out, 1);
    assert.equal((await stat(join(out, 's'))).mode & 0o7777, 0o755);
  });
});

describe('packDirectory → extractTar', () => {
  it('round-trips a tree (nested, binary, modes, symlinks) under a prefix', async () => {
    const src = await mkdtemp(join(tmpdir(), 'sg-pack-'));
    const dst = await mkdtemp(join(tmpdir(), 'sg-unpack-'));
    try {
      const bin = Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 256));
      await mkdir(join(src, 'sub/deeper'), { recursive: true });
      await writeFile(join(src, 'sub/deeper/blob.bin'), bin);
      await writeFile(join(src, 'run.sh'), 'echo\n', { mode: 0o755 });
      await symlink('run.sh', join(src, 'link'));
      const names: string[] = [];
      const packed = packDirectory(src, '/work/repo', { rootMode: 0o750 });
      const extract = tar.extract();
      extract.on('entry', (h, s, next) => {
        names.push(h.name);
        s.resume();
        next();
      });
      const listed = new Promise<void>((resolve) => extract.on('finish', () => resolve()));
      (packed as unknown as Readable).pipe(extract as unknown as NodeJS.WritableStream);
      await listed;
      assert.deepEqual(names, [
        'work/repo/',
        'work/repo/link',
        'work/repo/run.sh',
        'work/repo/sub/',
        'work/repo/sub/deeper/',
        'work/repo/sub/deeper/blob.bin',
      ]);
      await extractTar(packDirectory(src, '/x') as unknown as Readable, dst, 1);
      assert.deepEqual(await readFile(join(dst, 'sub/deeper/blob.bin')), bin);
      assert.equal((await stat(join(dst, 'run.sh'))).mode & 0o777, 0o755);
      assert.equal(await readlink(join(dst, 'link')), 'run.sh');
    } finally {
      await rm(src, { recursive: true, force: true });
      await rm(dst, { recursive: true, force: true });
    }
  });
});
