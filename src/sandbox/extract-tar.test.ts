import assert from 'node:assert/strict';
import { lstat, mkdir, mkdtemp, readFile, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import tar from 'tar-stream';
import { packDirectory } from './docker/pack-directory.ts';
import { extractTar } from './extract-tar.ts';

type Entry = {
  name: string;
  type?: tar.Header['type'];
  devmajor?: number;
  devminor?: number;
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

describe('extractTar (archives from a sandbox are untrusted: PEP 706 "data" rules)', () => {
  let root: string;
  let n = 0;
  const fresh = () => join(root, `out-${n++}`);
  const strip1 = { stripComponents: 1 };
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'sg-extract-'));
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('extracts files, directories, symlinks, and hard links as copies, stripping the first component', async () => {
    const out = fresh();
    await extractTar(
      await tarOf([
        { name: './', type: 'directory', mode: 0o755 },
        { name: './a.txt', body: 'A', mode: 0o640 },
        { name: './ro/', type: 'directory', mode: 0o555 },
        { name: './ro/b.txt', body: 'B' },
        { name: './link', type: 'symlink', linkname: 'a.txt' },
        { name: './ro/up', type: 'symlink', linkname: '../a.txt' },
        { name: './hard', type: 'link', linkname: './a.txt' },
      ]),
      out,
      strip1,
    );
    assert.equal(await readFile(join(out, 'a.txt'), 'utf8'), 'A');
    assert.equal((await stat(join(out, 'a.txt'))).mode & 0o777, 0o640);
    assert.equal(await readFile(join(out, 'ro/b.txt'), 'utf8'), 'B');
    assert.equal((await stat(join(out, 'ro'))).mode & 0o777, 0o755, 'directory modes are ignored');
    assert.equal(await readlink(join(out, 'link')), 'a.txt');
    assert.equal(await readFile(join(out, 'ro/up'), 'utf8'), 'A');
    assert.equal(await readFile(join(out, 'hard'), 'utf8'), 'A');
    assert.notEqual((await stat(join(out, 'hard'))).ino, (await stat(join(out, 'a.txt'))).ino, 'a copy');
  });

  it('refuses entries that climb out with ..', async () => {
    await assert.rejects(
      extractTar(await tarOf([{ name: './../escape.txt', body: 'x' }]), fresh(), strip1),
      /climbs out/,
    );
    await assert.rejects(lstat(join(root, 'escape.txt')), /ENOENT/);
  });

  it('puts an absolute entry name under the directory (leading / stripped)', async () => {
    const out = fresh();
    await extractTar(await tarOf([{ name: '/etc/cron.d/evil', body: 'x' }]), out);
    assert.equal(await readFile(join(out, 'etc/cron.d/evil'), 'utf8'), 'x');
  });

  for (const type of ['character-device', 'block-device', 'fifo'] as const) {
    it(`refuses a ${type} (a device node opening the host's disk, a FIFO that hangs a reader)`, async () => {
      const out = fresh();
      await assert.rejects(
        extractTar(await tarOf([{ name: 'sda', type, devmajor: 8, devminor: 0 }]), out),
        new RegExp(`is a ${type}`),
      );
      await assert.rejects(lstat(join(out, 'sda')), /ENOENT/);
    });
  }

  it('refuses a symlink to an absolute path or out of the directory', async () => {
    for (const linkname of ['/etc/shadow', '../../etc/shadow', 'a/../../x']) {
      const out = fresh();
      await assert.rejects(
        extractTar(await tarOf([{ name: 'l', type: 'symlink', linkname }]), out),
        /is a symlink/,
      );
      await assert.rejects(lstat(join(out, 'l')), /ENOENT/);
    }
  });

  it('refuses a symlink that climbs out through another symlink (d -> ., e -> d/d/../..)', async () => {
    const out = fresh();
    await assert.rejects(
      extractTar(
        await tarOf([
          { name: 'sub/', type: 'directory' },
          { name: 'sub/d', type: 'symlink', linkname: '.' },
          { name: 'sub/e', type: 'symlink', linkname: 'd/d/d/../../..' },
        ]),
        out,
      ),
      /resolves outside/,
    );
  });

  it('refuses a hard link to a host file, to a link, or to a file not extracted before', async () => {
    for (const linkname of ['/etc/passwd', '../../../../etc/passwd', 'missing', 'l']) {
      const out = fresh();
      await assert.rejects(
        extractTar(
          await tarOf([
            { name: 'l', type: 'symlink', linkname: 'x' },
            { name: 'h', type: 'link', linkname },
          ]),
          out,
        ),
        /hard link|climbs out/,
      );
      await assert.rejects(lstat(join(out, 'h')), /ENOENT/);
    }
  });

  it('never writes through a symlink the archive planted', async () => {
    const out = fresh();
    await assert.rejects(
      extractTar(
        await tarOf([
          { name: './sub/', type: 'directory' },
          { name: './evil', type: 'symlink', linkname: 'sub' },
          { name: './evil/pwned.txt', body: 'x' },
        ]),
        out,
        strip1,
      ),
      /not a real directory/,
    );
    await assert.rejects(lstat(join(out, 'sub/pwned.txt')), /ENOENT/);
  });

  it('replaces an existing link at a file entry instead of writing through it', async () => {
    const target = join(root, 'victim.txt');
    await writeFile(target, 'original');
    const out = fresh();
    await mkdir(out);
    await symlink(target, join(out, 'f.txt'));
    await extractTar(await tarOf([{ name: './f.txt', body: 'new' }]), out, strip1);
    assert.equal(await readFile(target, 'utf8'), 'original');
    assert.equal(await readFile(join(out, 'f.txt'), 'utf8'), 'new');
  });

  it('drops setuid, setgid, sticky and group/other write; keeps owner read/write', async () => {
    const out = fresh();
    await extractTar(
      await tarOf([
        { name: 's', body: '#!/bin/sh\n', mode: 0o6777 },
        { name: 'w', body: 'x', mode: 0o1066 },
        { name: 'r', body: 'x', mode: 0o055 },
      ]),
      out,
    );
    assert.equal((await stat(join(out, 's'))).mode & 0o7777, 0o755);
    assert.equal((await stat(join(out, 'w'))).mode & 0o7777, 0o644);
    assert.equal((await stat(join(out, 'r'))).mode & 0o7777, 0o644, 'no execute when the owner has none');
  });

  it('stops at its byte cap (a sparse 20 GiB file must not fill the host disk)', async () => {
    const out = fresh();
    await assert.rejects(
      extractTar(await tarOf([{ name: 'big', body: 'x'.repeat(5000) }]), out, { maxBytes: 4096 }),
      /byte cap/,
    );
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
      await extractTar(packDirectory(src, '/x') as unknown as Readable, dst, { stripComponents: 1 });
      assert.deepEqual(await readFile(join(dst, 'sub/deeper/blob.bin')), bin);
      assert.equal((await stat(join(dst, 'run.sh'))).mode & 0o777, 0o755);
      assert.equal(await readlink(join(dst, 'link')), 'run.sh');
    } finally {
      await rm(src, { recursive: true, force: true });
      await rm(dst, { recursive: true, force: true });
    }
  });
});
