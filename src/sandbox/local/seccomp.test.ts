import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { arch, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildProbe, kernelTakesInt80, PROBE_EXPECTED, parseProbe } from './testing/seccomp-probe.ts';

const run = promisify(execFile);
const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

/**
 * Docker's default seccomp profile as it applies to a container with Docker's default capabilities on
 * x86_64: made by scripts/gen-seccomp-fixture.ts from moby/profiles seccomp/default.json (commit in
 * its `source`).
 */
const docker = JSON.parse(readFileSync(here('./fixtures/docker-default-seccomp.json'), 'utf8')) as {
  defaultErrno: number;
  allow: string[];
  argRules: { name: string; arg: number; op: string; value: number; valueTwo: number }[];
  errno: { name: string; errno: number }[];
  gated: string[];
};

/** Never allowed in a sandbox, whatever the profile says: container escapes and kernel attack surface. */
const NEVER = `keyctl add_key request_key userfaultfd kexec_load kexec_file_load io_uring_setup io_uring_enter
  io_uring_register swapon swapoff pivot_root bpf perf_event_open open_by_handle_at mount umount2 unshare setns
  init_module finit_module delete_module fsopen fsmount move_mount open_tree mount_setattr`.split(/\s+/);

describe('seccomp filter (helper/seccomp.c)', { timeout: 120_000 }, () => {
  let dir: string;
  let filter: string;
  let probe: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sg-seccomp-'));
    filter = join(dir, 'seccomp');
    await run('cc', ['-O2', '-DSANDGYM_SECCOMP_MAIN', '-o', filter, here('./helper/seccomp.c'), '-lseccomp']);
    probe = await buildProbe(dir);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it("allows what Docker's default profile allows a default container, and nothing more", {
    skip: arch() === 'x64' ? false : 'the fixture is for x86_64',
  }, async () => {
    const lines = (await run(filter, ['rules'])).stdout.trim().split('\n');
    const names = (verb: string) => lines.filter((l) => l.startsWith(`${verb} `) && !l.includes(' if '));
    const allowed = names('allow').map((l) => l.slice(6));
    const skipped = names('skip').map((l) => l.slice(5));
    assert.ok(lines.includes(`default errno ${docker.defaultErrno}`));
    assert.ok(lines.includes('badarch kill'), 'a foreign architecture kills the process');
    // Every call Docker allows is allowed here, or does not exist on x86_64 (libseccomp has no number).
    assert.deepEqual(
      docker.allow.filter((n) => !allowed.includes(n) && !skipped.includes(n)),
      [],
      'allowed by Docker, missing here',
    );
    assert.deepEqual(
      allowed.filter((n) => !docker.allow.includes(n)),
      [],
      'allowed here, not by Docker',
    );
    for (const n of [...docker.gated, ...NEVER]) assert.ok(!allowed.includes(n), `${n} is not allowed`);
    assert.ok(allowed.length > 300, `${allowed.length} calls resolved on x86_64`);

    const ops: Record<string, string> = { SCMP_CMP_LT: '<', SCMP_CMP_EQ: '==', SCMP_CMP_GT: '>' };
    const hex = (n: number) => `0x${n.toString(16)}`;
    const expected = docker.argRules.map((r) =>
      r.op === 'SCMP_CMP_MASKED_EQ'
        ? `allow ${r.name} if arg${r.arg} & ${hex(r.value)} == ${hex(r.valueTwo)}`
        : `allow ${r.name} if arg${r.arg} ${ops[r.op]} ${hex(r.value)}`,
    );
    assert.deepEqual(
      lines.filter((l) => l.includes(' if ')),
      expected,
    );
    for (const r of docker.errno)
      assert.ok(lines.includes(`errno ${r.errno} ${r.name}`), `${r.name}: ${r.errno}`);
    // Calls newer than the profile: ENOSYS, so that libc falls back to an older call.
    assert.ok(lines.includes('errno 38 467-511'));
  });

  it('stops each escape attempt with EPERM (clone3: ENOSYS) and lets fork, threads and sockets work', async () => {
    const { stdout } = await run(filter, ['run', probe]);
    assert.deepEqual(parseProbe(stdout), PROBE_EXPECTED);
  });

  for (const entry of ['int80', 'x32'])
    it(`kills a process that makes a ${entry === 'int80' ? '32-bit x86 (int 0x80)' : 'x32'} system call`, {
      skip: arch() === 'x64' ? false : 'x86_64 only',
    }, async (t) => {
      if (entry === 'int80' && !(await kernelTakesInt80(probe)))
        return t.skip('the kernel takes no 32-bit calls');
      const failed = await run(filter, ['run', probe, entry]).then(
        () => undefined,
        (e: { signal?: string; stdout?: string }) => e,
      );
      assert.equal(failed?.signal, 'SIGSYS', `survived: ${failed?.stdout}`);
    });
});
