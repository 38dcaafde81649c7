/**
 * npm run bench:serve — `sandgym serve` against the local provider it wraps, in one run.
 *
 * For 1, 16 and 64 concurrent clients: sandbox creates per second, and the p50 round trip of a small
 * exec (`echo hi`), once through the server (the e2b provider over HTTP to `sandgym serve` running as its
 * own process on a free port, as it is deployed) and once in-process (a local provider called
 * directly). The two alternate, in ROUNDS rounds whose order flips each time, and each figure pools its
 * rounds, so that load from elsewhere on the host hits both alike. `overhead_ratio_vs_inprocess` is
 * the exec p50 ratio at 16 clients; the other concurrencies have their own ratios, and each ratio's
 * range over the rounds' back-to-back pairs shows how much the host's state moves it. Execs that return
 * the wrong output are counted, not timed. The Node CPU per exec (e2b client and server, against the
 * in-process provider) says where the overhead goes. Then the official `e2b` SDK's script runs against
 * the server (`sdk_features_passed` of `sdk_features_total`), and 100 commands are killed through it at
 * 0-20 ms after their start (`kill_survivors`: processes left, must be 0). The last line printed is one
 * line of JSON; timings are only comparable within one run.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createE2BProvider } from '../src/sandbox/e2b/index.ts';
import type { Sandbox, SandboxProvider } from '../src/sandbox/index.ts';
import { killProbe } from '../src/sandbox/kill-probe.ts';
import { createLocalProvider } from '../src/sandbox/local/index.ts';
import { procStatFields } from '../src/sandbox/owner.ts';
import { addApiKey } from '../src/server/index.ts';
import { runOfficialSdkScript } from '../src/server/testing/official-sdk-script.ts';

const IMAGE = 'sandgym/base';
/**
 * Small limits for every sandbox, on both sides: serve's host-wide caps (half the kernel's pid table,
 * 4× memory and free disk) hold the 128 sandboxes of the 64-client create phase with these, not with the
 * defaults (512 processes each).
 */
const LIMITS = { pids: 64, memoryBytes: 256 * 1024 ** 2, diskBytes: 256 * 1024 ** 2 };
const CONCURRENCY = [1, 16, 64] as const;
/** Creates per client in the creates phase, and execs per client in the exec phase. */
const CREATES_PER_CLIENT: Record<number, number> = { 1: 20, 16: 3, 64: 2 };
const EXECS_PER_CLIENT: Record<number, number> = { 1: 60, 16: 12, 64: 6 };
const WARMUP = 5;
const ROUNDS = 5;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round = (x: number) => Math.round(x * 100) / 100;

/** Times `clients` creating at once; the sandboxes are closed after the clock stops. */
async function timeCreates(
  provider: SandboxProvider,
  clients: number,
): Promise<{ count: number; seconds: number }> {
  const made: Sandbox[] = [];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let i = 0; i < CREATES_PER_CLIENT[clients]!; i++)
        made.push(await provider.create({ image: IMAGE, limits: LIMITS }));
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  await Promise.all(made.map((s) => s.close()));
  return { count: made.length, seconds };
}

/**
 * Round trips of `echo hi`, `clients` at once, each client in its own sandbox; `wrong` counts execs that
 * did not return `hi` (left out of the latencies, and reported). `cpu` is the Node CPU the execs took.
 */
async function timeExecs(
  provider: SandboxProvider,
  clients: number,
): Promise<{ latencies: number[]; wrong: number; cpu: CpuMs }> {
  const sandboxes = await Promise.all(
    Array.from({ length: clients }, () => provider.create({ image: IMAGE, limits: LIMITS })),
  );
  const latencies: number[] = [];
  let wrong = 0;
  const cpu0 = cpuMs();
  let cpu1 = cpu0;
  try {
    await Promise.all(
      sandboxes.map(async (s) => {
        for (let i = 0; i < EXECS_PER_CLIENT[clients]!; i++) {
          const t0 = performance.now();
          const r = await s.exec(['echo', 'hi']);
          if (r.stdout === 'hi\n' && r.exitCode === 0) latencies.push(performance.now() - t0);
          else wrong++;
        }
      }),
    );
    cpu1 = cpuMs();
  } finally {
    await Promise.all(sandboxes.map((s) => s.close()));
  }
  return { latencies, wrong, cpu: { self: cpu1.self - cpu0.self, server: cpu1.server - cpu0.server } };
}

/**
 * CPU time so far of this process (the e2b client while the server is measured, the local provider
 * while in-process is) and of `sandgym serve`'s process. Sandbox processes, the fork server and the
 * kernel's work on their behalf are in neither.
 */
interface CpuMs {
  self: number;
  server: number;
}
let serverPid: number | undefined;
function cpuMs(): CpuMs {
  const { user, system } = process.cpuUsage();
  // Fields 14 and 15 of /proc/<pid>/stat: utime and stime, in 1/100 s.
  const fields = serverPid === undefined ? undefined : procStatFields(serverPid);
  const server = fields ? (Number(fields[11]) + Number(fields[12])) * 10 : 0;
  return { self: (user + system) / 1000, server };
}

interface Pooled {
  creates: number;
  createSeconds: number;
  latencies: number[];
  /** Each round's exec p50. */
  roundP50s: number[];
  wrong: number;
  cpu: CpuMs;
}

async function measure(provider: SandboxProvider, clients: number, into: Pooled): Promise<void> {
  const created = await timeCreates(provider, clients);
  into.creates += created.count;
  into.createSeconds += created.seconds;
  const execs = await timeExecs(provider, clients);
  into.latencies.push(...execs.latencies);
  into.roundP50s.push(median(execs.latencies));
  into.wrong += execs.wrong;
  into.cpu.self += execs.cpu.self;
  into.cpu.server += execs.cpu.server;
}

async function warmUp(provider: SandboxProvider): Promise<void> {
  const s = await provider.create({ image: IMAGE, limits: LIMITS });
  for (let i = 0; i < WARMUP; i++) await s.exec(['echo', 'hi']);
  await s.close();
}

let stopping = false;

/** Starts `sandgym serve` on a free port; resolves with its URL once it says it listens. */
async function startServe(keysFile: string): Promise<{ url: string; child: ChildProcess }> {
  const bin = fileURLToPath(new URL('../bin/sandgym.js', import.meta.url));
  const args = ['serve', '--port', '0', '--keys-file', keysFile, '--max-sandboxes-per-key', '512'];
  const child = spawn(process.execPath, [bin, ...args, '--creates-per-second', '10000'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (b: Buffer) => {
      log += b.toString();
      const m = /sandgym serve: (http:\/\/\S+) /.exec(log);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`sandgym serve exited ${code}: ${log}`)));
    // A server that dies mid-run shows up as a client's 'socket hang up': say why it died.
    child.once('exit', (code, signal) => {
      if (!stopping)
        process.stderr.write(`sandgym serve exited (${code ?? signal}) mid-run:\n${log.slice(-8000)}\n`);
    });
    setTimeout(() => reject(new Error(`sandgym serve did not start within 60 s: ${log}`)), 60_000).unref();
  });
  return { url, child };
}

const keysDir = await mkdtemp(join(tmpdir(), 'sandgym-bench-serve-'));
const { key } = await addApiKey(join(keysDir, 'keys'), 'bench');
const server = await startServe(join(keysDir, 'keys'));
serverPid = server.child.pid;
const viaServer = await createE2BProvider(
  { options: { apiKey: key, apiUrl: server.url, sandboxUrl: server.url } },
  {},
);
const inProcess = await createLocalProvider();
const results: Record<string, number | boolean> = {};
try {
  await warmUp(viaServer);
  await warmUp(inProcess);
  for (const c of CONCURRENCY) {
    // One concurrency failing (say, the host out of some resource) is reported; the rest still run.
    try {
      const pooled = (): Pooled => ({
        creates: 0,
        createSeconds: 0,
        latencies: [],
        roundP50s: [],
        wrong: 0,
        cpu: { self: 0, server: 0 },
      });
      const [local, served] = [pooled(), pooled()];
      for (let r = 0; r < ROUNDS; r++) {
        const order: [SandboxProvider, Pooled][] = [
          [inProcess, local],
          [viaServer, served],
        ];
        for (const [provider, into] of r % 2 === 0 ? order : order.reverse())
          await measure(provider, c, into);
      }
      const [localRate, servedRate] = [
        local.creates / local.createSeconds,
        served.creates / served.createSeconds,
      ];
      const [localP50, servedP50] = [median(local.latencies), median(served.latencies)];
      results[`creates_per_s_c${c}`] = round(servedRate);
      results[`inprocess_creates_per_s_c${c}`] = round(localRate);
      results[`create_overhead_ratio_c${c}`] = round(localRate / servedRate);
      results[`exec_p50_ms_c${c}`] = round(servedP50);
      results[`inprocess_exec_p50_ms_c${c}`] = round(localP50);
      results[`exec_overhead_ratio_c${c}`] = round(servedP50 / localP50);
      // Each round's pair, measured back to back: how far the host's state moves the ratio.
      const pairs = served.roundP50s.map((p, r) => p / local.roundP50s[r]!);
      results[`exec_overhead_ratio_c${c}_round_min`] = round(Math.min(...pairs));
      results[`exec_overhead_ratio_c${c}_round_max`] = round(Math.max(...pairs));
      const perExec = (ms: number, p: Pooled) => round(ms / (p.latencies.length + p.wrong));
      results[`client_cpu_ms_per_exec_c${c}`] = perExec(served.cpu.self, served);
      results[`server_cpu_ms_per_exec_c${c}`] = perExec(served.cpu.server, served);
      results[`inprocess_cpu_ms_per_exec_c${c}`] = perExec(local.cpu.self, local);
      results[`exec_wrong_output_c${c}`] = served.wrong;
      results[`inprocess_exec_wrong_output_c${c}`] = local.wrong;
      process.stdout.write(
        `c=${String(c).padStart(2)}  creates/s ${servedRate.toFixed(1)} served vs ${localRate.toFixed(1)} in-process;  ` +
          `exec p50 ${servedP50.toFixed(2)} ms served vs ${localP50.toFixed(2)} ms in-process ` +
          `(×${(servedP50 / localP50).toFixed(2)}, rounds ×${Math.min(...pairs).toFixed(2)}–${Math.max(...pairs).toFixed(2)}); wrong output ${served.wrong} served, ${local.wrong} in-process\n` +
          `      Node CPU per exec: client ${results[`client_cpu_ms_per_exec_c${c}`]} ms + server ` +
          `${results[`server_cpu_ms_per_exec_c${c}`]} ms served vs ${results[`inprocess_cpu_ms_per_exec_c${c}`]} ms in-process\n`,
      );
    } catch (e) {
      results[`error_c${c}`] = true;
      process.stdout.write(`c=${String(c).padStart(2)}  failed: ${(e as Error).message}\n`);
    }
  }
  results.overhead_ratio_vs_inprocess = results.exec_overhead_ratio_c16!;
  const checks = await runOfficialSdkScript({ url: server.url, apiKey: key, template: IMAGE });
  for (const c of checks.filter((x) => !x.ok))
    process.stdout.write(`SDK check failed: ${c.name}: ${c.detail}\n`);
  results.e2b_sdk_conformance = checks.length > 0 && checks.every((c) => c.ok);
  results.sdk_features_passed = checks.filter((c) => c.ok).length;
  results.sdk_features_total = checks.length;
  // 100 commands with children and a daemon, each killed 0-20 ms after its start through the server.
  const probed = await viaServer.create({ image: IMAGE });
  try {
    const k = await killProbe(probed, { kills: 100 });
    results.kill_survivors = k.survivors;
    results.kill_wrong_exits = k.wrongExits.length;
    process.stdout.write(
      `kill probe: ${k.kills} kills, ${k.survivors} processes survived, ${k.wrongExits.length} exits not SIGKILL\n`,
    );
  } finally {
    await probed.close();
  }
} finally {
  // A failed close must not leave the server running (one run's crash left it for an hour).
  for (const p of [viaServer, inProcess]) {
    await p
      .close()
      .catch((e: unknown) => process.stderr.write(`closing ${p.name}: ${(e as Error).message}\n`));
  }
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  stopping = true;
  server.child.kill('SIGTERM');
  await exited;
  await rm(keysDir, { recursive: true, force: true });
}
process.stdout.write(`${JSON.stringify(results)}\n`);
