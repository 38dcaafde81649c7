import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const words = (s: string) => s.trim().split(/\s+/);

/** The probe's attacks, and the error each must get under the filter. */
export const PROBE_REFUSED: Record<string, string> = Object.fromEntries([
  ...words(`keyctl add_key request_key unshare_newuser unshare_newns unshare_newnet clone_newuser clone_newpid
    setns mount umount2 pivot_root open_tree fsopen userfaultfd bpf perf_event_open io_uring_setup
    open_by_handle_at kexec_load kexec_file_load init_module finit_module delete_module swapon swapoff acct
    syslog settimeofday socket_vsock socket_alg personality_no_aslr`).map((k) => [k, 'EPERM']),
  ['clone3', 'ENOSYS'],
]);

/** The probe's normal work, which must succeed under the filter. */
export const PROBE_WORKS = words('fork thread socket_inet socket_unix personality_query getpid');

/** Every line the probe must print under the filter. */
export const PROBE_EXPECTED: Record<string, string> = {
  ...PROBE_REFUSED,
  ...Object.fromEntries(PROBE_WORKS.map((k) => [k, 'ok'])),
};

/** The probe's output as NAME → RESULT. */
export function parseProbe(stdout: string): Record<string, string> {
  return Object.fromEntries(
    stdout
      .trim()
      .split('\n')
      .map((l) => l.split(' ') as [string, string]),
  );
}

/** Compiles seccomp-probe.c into `dir`, statically, so that it runs in any image. */
export async function buildProbe(dir: string): Promise<string> {
  const probe = join(dir, 'seccomp-probe');
  const source = fileURLToPath(new URL('./seccomp-probe.c', import.meta.url));
  await promisify(execFile)('cc', ['-O2', '-static', '-pthread', '-o', probe, source]);
  return probe;
}

/** Whether the host kernel takes 32-bit calls at all (ia32 emulation may be off): the probe, unfiltered. */
export async function kernelTakesInt80(probe: string): Promise<boolean> {
  return promisify(execFile)(probe, ['int80']).then(
    (r) => r.stdout.startsWith('int80 survived'),
    () => false,
  );
}
