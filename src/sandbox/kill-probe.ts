import type { Sandbox } from './types.ts';

/**
 * Does a kill leave anything running? Starts `kills` commands in `sandbox`, each with a child, a
 * grandchild and a daemon (setsid, re-parented to pid 1), all sleeping for ever, and kills each one at
 * 0, 1, 5 or 20 ms after its start (the moments that used to race the command's own set-up). Every
 * kill must end its command with SIGKILL; then no process of any probe may remain. A kill may take a
 * while to land on a loaded host (docker's tree walks are execs of their own), so the check polls for
 * up to `settleMs` before it counts survivors. Used by the conformance suite and bench:serve.
 */
export interface KillProbeResult {
  kills: number;
  /** Probe processes still alive `settleMs` after the last kill: must be 0. */
  survivors: number;
  /** Kills whose exit did not report SIGKILL (exit code 137), with what was reported. */
  wrongExits: string[];
}

const DELAYS_MS = [0, 1, 5, 20] as const;
/** An unusual duration: the probes' processes are found by it. */
const SLEEP = 'sleep 7919';
/** How long a killed command has to report its exit. */
const EXIT_WAIT_MS = 60_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function killProbe(
  sandbox: Sandbox,
  o: { kills?: number; concurrency?: number; settleMs?: number } = {},
): Promise<KillProbeResult> {
  const kills = o.kills ?? 100;
  const wrongExits: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: o.concurrency ?? 10 }, async () => {
      for (let i = next++; i < kills; i = next++) {
        const delayMs = DELAYS_MS[i % DELAYS_MS.length]!;
        const proc = await sandbox.spawn(['sh', '-c', PROBE_SCRIPT], { stdin: false });
        proc.stdout.resume();
        proc.stderr.resume();
        if (delayMs > 0) await sleep(delayMs);
        proc.kill('SIGKILL');
        let timer: NodeJS.Timeout | undefined;
        const exit = await Promise.race([
          proc.exited,
          new Promise<undefined>((r) => {
            timer = setTimeout(() => r(undefined), EXIT_WAIT_MS);
          }),
        ]);
        clearTimeout(timer);
        if (exit?.exitCode !== 137) {
          wrongExits.push(
            `kill ${i} at ${delayMs} ms: ${exit ? `exit ${exit.exitCode}` : `no exit in ${EXIT_WAIT_MS} ms`}`,
          );
        }
      }
    }),
  );
  const deadline = Date.now() + (o.settleMs ?? 15_000);
  for (;;) {
    const survivors = await countProbeProcesses(sandbox);
    if (survivors === 0 || Date.now() > deadline) return { kills, survivors, wrongExits };
    await sleep(200);
  }
}

/** A command with a child, a grandchild and a setsid daemon, each sleeping for ever. */
const PROBE_SCRIPT = [`(sh -c '${SLEEP}' & ${SLEEP}) &`, `setsid sh -c '${SLEEP}' &`, `${SLEEP}; wait`].join(
  '\n',
);

/** Live processes whose command line holds the probes' sleep (the pattern is split so ours does not). */
async function countProbeProcesses(sandbox: Sandbox): Promise<number> {
  const [head, tail] = SLEEP.split(' ');
  const r = await sandbox.exec(
    `a=${head}; b=${tail}; for p in /proc/[0-9]*; do c=$(tr "\\0" " " < $p/cmdline 2>/dev/null); ` +
      `case "$c" in *"$a $b"*) echo "$c";; esac; done`,
  );
  if (r.exitCode !== 0) throw new Error(`kill probe: cannot list processes: ${r.stderr}`);
  return r.stdout.split('\n').filter((l) => l !== '').length;
}
