import assert from 'node:assert/strict';
import { lstat, mkdtemp, readdir, readFile, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import tar from 'tar-stream';
import type { ConformanceTarget } from './conformance.ts';
import type { Sandbox, SandboxProvider } from './types.ts';

/**
 * Attacks on the host-side copies of a provider, run by each provider's `host-side-attacks` test file
 * (bench:sandbox counts the local one's among its escapes): what a sandbox makes is untrusted, so
 * downloadDir must never put a device node, FIFO, setuid file or a link out of the directory on the
 * host, however the sandbox built the tree or its archive.
 */
export function runHostSideAttacks(target: ConformanceTarget): void {
  describe(`host-side copies never trust what the sandbox made (attacks): ${target.name}`, {
    skip: target.skip ?? false,
    timeout: 300_000,
  }, () => {
    let provider: SandboxProvider;
    const open: Sandbox[] = [];
    const sandbox = async () => {
      const s = await provider.create({ image: target.image });
      open.push(s);
      return s;
    };
    before(async () => {
      provider = await target.provider();
    });
    after(async () => {
      await Promise.all(open.map((s) => s.close()));
      await provider?.close();
    });

    it('downloadDir of a FIFO and a device node made inside refuses, creating neither on the host', async () => {
      const s = await sandbox();
      // mknod needs CAP_MKNOD, which a hardened sandbox may not have: the FIFO alone must be refused.
      const r = await s.exec(
        'mkdir -p /tmp/t && echo ok > /tmp/t/ok && mkfifo /tmp/t/fifo && (mknod /tmp/t/sda b 8 0 || true)',
      );
      assert.equal(r.exitCode, 0, r.stderr);
      await withHostDir(async (dst) => {
        await assert.rejects(s.downloadDir('/tmp/t', dst), /fifo|device/);
        await assertContained(dst);
      });
    });

    it('downloadDir of a setuid-root shell made inside gives a plain file on the host', async () => {
      const s = await sandbox();
      const r = await s.exec('mkdir -p /tmp/u && cp /bin/sh /tmp/u/rootshell && chmod 6777 /tmp/u/rootshell');
      assert.equal(r.exitCode, 0, r.stderr);
      await withHostDir(async (dst) => {
        await s.downloadDir('/tmp/u', dst);
        assert.equal((await lstat(join(dst, 'rootshell'))).mode & 0o7777, 0o755);
        await assertContained(dst);
      });
    });

    it('downloadDir of a 2 GiB sparse file stops at its byte cap, writing next to nothing on the host', async () => {
      const s = await sandbox();
      const r = await s.exec('mkdir -p /tmp/w && truncate -s 2G /tmp/w/huge.py');
      assert.equal(r.exitCode, 0, r.stderr);
      await withHostDir(async (dst) => {
        await assert.rejects(s.downloadDir('/tmp/w', dst, { maxBytes: 1024 ** 2 }), /byte cap/);
        const st = await lstat(join(dst, 'huge.py')).catch(() => undefined);
        assert.ok(!st || st.blocks * 512 <= 1024 ** 2, 'no more than the cap was written');
      });
    });

    it('downloadDir with the sandbox tar replaced by one forging devices, links out and ../ is contained', async () => {
      const forged: Forged[][] = [
        [{ name: './sda', type: 'block-device', devmajor: 8, devminor: 0 }],
        [{ name: './mem', type: 'character-device', devmajor: 1, devminor: 1 }],
        [{ name: './shadow', type: 'symlink', linkname: '/etc/shadow' }],
        [{ name: './passwd', type: 'link', linkname: '/etc/passwd' }],
        [{ name: './up', type: 'symlink', linkname: '../../../../../../etc' }],
        [{ name: './../sandgym-escaped', type: 'file', size: 2 }],
      ];
      const s = await sandbox();
      for (const entries of forged) {
        // Providers whose archive does not come from the sandbox's tar (docker) download the real tree.
        await s.writeFile('/tmp/forged.tar', await archiveOf(entries));
        await s.writeFile('/usr/local/bin/tar', '#!/bin/sh\ncat /tmp/forged.tar\n', { mode: 0o755 });
        const r = await s.exec('mkdir -p /tmp/v && echo ok > /tmp/v/ok');
        assert.equal(r.exitCode, 0, r.stderr);
        await withHostDir(async (dst) => {
          await s.downloadDir('/tmp/v', dst).catch(() => {});
          await assertContained(dst);
          await assert.rejects(lstat(join(dirname(dst), 'sandgym-escaped')), /ENOENT/);
        });
      }
    });
  });
}

type Forged = Pick<tar.Header, 'name' | 'type'> & Partial<tar.Header>;

async function archiveOf(entries: Forged[]): Promise<Buffer> {
  const pack = tar.pack();
  for (const e of entries) {
    if (e.type === 'file') pack.entry(e, 'x\n');
    else pack.entry(e);
  }
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const c of pack as unknown as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

/** Runs `fn` with a fresh host directory inside a private parent (so an escape would land beside it). */
async function withHostDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const parent = await mkdtemp(join(tmpdir(), 'sg-attack-'));
  try {
    await fn(join(parent, 'dst'));
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
}

/**
 * Everything under `dir` is a regular file, directory or in-tree relative symlink; no setuid/setgid bit
 * and no extra hard link to a file outside.
 */
async function assertContained(dir: string): Promise<void> {
  const passwd = await readFile('/etc/passwd', 'utf8');
  const walk = async (d: string): Promise<void> => {
    const names = await readdir(d).catch(() => [] as string[]);
    for (const name of names) {
      const path = join(d, name);
      const st = await lstat(path);
      assert.ok(st.isFile() || st.isDirectory() || st.isSymbolicLink(), `${path} is a special file`);
      assert.equal(st.mode & 0o6000, 0, `${path} is setuid/setgid`);
      if (st.isFile()) {
        assert.equal(st.nlink, 1, `${path} is a hard link`);
        assert.notEqual(await readFile(path, 'utf8'), passwd, `${path} is the host's /etc/passwd`);
      }
      if (st.isSymbolicLink()) {
        const target = await readlink(path);
        assert.ok(!target.startsWith('/') && !target.startsWith('../..'), `${path} links to ${target}`);
      }
      if (st.isDirectory()) await walk(path);
    }
  };
  await walk(dir);
}
