/**
 * npm run bench:sandbox — sandbox lifecycle latency, fork and density.
 *
 * Local part: create + exec `python3 -c 'print(1)'` + close (median of LIFECYCLE_RUNS after warm-up; close
 * returns once the processes are gone, the cgroup and directory removal runs in the background),
 * fork(8) of a sandbox with some state (median of FORK_RUNS), and how many idle sandboxes the host holds
 * at once (up to CONCURRENT_TARGET, each then checked with an exec) with their memory.
 * Then the attack tests on local sandboxes (`benchEscapes`), with the hardening on as always.
 * Docker part: `benchDocker` below, owned by the docker provider.
 * The last line printed is one line of JSON. Timings are only comparable within one run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLocal } from '../src/sandbox/local/index.ts';
import type { LocalSandbox } from '../src/sandbox/local/local-sandbox.ts';

const IMAGE = 'sandgym/base';
const LIFECYCLE_RUNS = 30;
const FORK_RUNS = 10;
const CONCURRENT_TARGET = 200;
const CREATE_BATCH = 10;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round = (x: number) => Math.round(x * 10) / 10;

function memAvailableBytes(): number {
  const m = /MemAvailable:\s+(\d+) kB/.exec(readFileSync('/proc/meminfo', 'utf8'));
  return Number(m?.[1] ?? 0) * 1024;
}

/** Memory charged to a sandbox's cgroup (processes, page tables, its tmpfs), when cgroups are in use. */
function cgroupMemoryBytes(dirs: string[]): number | undefined {
  for (const dir of dirs) {
    for (const file of ['memory.usage_in_bytes', 'memory.current']) {
      try {
        return Number(readFileSync(join(dir, file), 'utf8'));
      } catch {}
    }
  }
  return undefined;
}

interface LocalBench {
  local_lifecycle_p50_ms: number;
  local_create_p50_ms: number;
  local_exec_p50_ms: number;
  local_close_p50_ms: number;
  /** After the loop: how long the cgroup and directory removals close() left in the background took to finish. */
  local_release_drain_ms: number;
  local_fork8_ms: number;
  local_concurrent_ok: number;
  local_memory_per_sandbox_mb: number | null;
  local_host_memory_per_sandbox_mb: number;
}

async function benchLocal(): Promise<LocalBench> {
  const provider = await createLocal();
  try {
    const phases: number[][] = [];
    for (let i = 0; i < LIFECYCLE_RUNS + 3; i++) {
      const t0 = performance.now();
      const s = await provider.create({ image: IMAGE });
      const t1 = performance.now();
      const r = await s.exec(['python3', '-c', 'print(1)']);
      const t2 = performance.now();
      await s.close();
      const t3 = performance.now();
      if (r.stdout !== '1\n') throw new Error(`lifecycle exec printed ${JSON.stringify(r)}`);
      if (i >= 3) phases.push([t3 - t0, t1 - t0, t2 - t1, t3 - t2]);
    }
    const col = (c: number) => round(median(phases.map((p) => p[c]!)));
    const drainStart = performance.now();
    await provider.released();
    const drainMs = round(performance.now() - drainStart);
    console.log(
      `local lifecycle: p50 ${col(0)} ms (create ${col(1)}, exec ${col(2)}, close ${col(3)}); ` +
        `releases drained in ${drainMs} ms`,
    );

    const parent = await provider.create({ image: IMAGE });
    await parent.exec('mkdir -p /testbed && cd /testbed && seq 1 2000 > numbers.txt && git init -q');
    const forkMs: number[] = [];
    for (let i = 0; i < FORK_RUNS + 1; i++) {
      const t0 = performance.now();
      const kids = await parent.fork(8);
      const t1 = performance.now();
      await Promise.all(kids.map((k) => k.close()));
      if (i > 0) forkMs.push(t1 - t0);
    }
    await parent.close();
    console.log(`local fork(8): p50 ${round(median(forkMs))} ms`);

    const before = memAvailableBytes();
    const held: LocalSandbox[] = [];
    let failure = '';
    while (held.length < CONCURRENT_TARGET && !failure) {
      const batch = await Promise.allSettled(
        Array.from({ length: Math.min(CREATE_BATCH, CONCURRENT_TARGET - held.length) }, () =>
          provider.create({ image: IMAGE }),
        ),
      );
      for (const b of batch) {
        if (b.status === 'fulfilled') held.push(b.value);
        else failure ||= String(b.reason);
      }
    }
    const answers = await Promise.all(held.map((s) => s.exec('echo ok').then((r) => r.stdout === 'ok\n')));
    const ok = answers.filter(Boolean).length;
    const perBox = held.map((s) => cgroupMemoryBytes(provider.limitDriver.cgroupDirs(s.id)));
    const hostPerBox = (before - memAvailableBytes()) / Math.max(1, held.length);
    await Promise.all(held.map((s) => s.close()));
    const charged = perBox.every((b) => b !== undefined) ? median(perBox as number[]) / 1e6 : null;
    console.log(
      `local concurrent: ${ok}/${CONCURRENT_TARGET} idle sandboxes answered${failure ? ` (stopped: ${failure})` : ''}; ` +
        `memory per sandbox: ${charged === null ? 'n/a' : `${round(charged)} MB charged to its cgroup`}, ` +
        `${round(hostPerBox / 1e6)} MB of host MemAvailable`,
    );
    return {
      local_lifecycle_p50_ms: col(0),
      local_create_p50_ms: col(1),
      local_exec_p50_ms: col(2),
      local_close_p50_ms: col(3),
      local_release_drain_ms: drainMs,
      local_fork8_ms: round(median(forkMs)),
      local_concurrent_ok: ok,
      local_memory_per_sandbox_mb: charged === null ? null : round(charged),
      local_host_memory_per_sandbox_mb: round(hostPerBox / 1e6),
    };
  } finally {
    await provider.close();
  }
}

// ── docker part: owned by the docker provider ──

const DOCKER_LIFECYCLE_RUNS = 20;
const DOCKER_WARMUP_RUNS = 2;

interface DockerBench {
  docker_lifecycle_p50_ms: number | null;
  docker_create_p50_ms: number | null;
  docker_exec_p50_ms: number | null;
  docker_close_p50_ms: number | null;
  /** After the loop: how long provider.close() took to finish the removals close() left in the background. */
  docker_removal_drain_ms: number | null;
  docker_cli_lifecycle_p50_ms: number | null;
  docker_storage_driver: string | null;
}

/**
 * The docker provider's lifecycle (create + exec `python3 -c 'print(1)'` + close, where close returns
 * after the kill and the removal runs in the background) against the plain CLI baseline,
 * `docker run --rm` of the same command (which waits for the removal). Nulls when no engine answers.
 */
async function benchDocker(): Promise<DockerBench> {
  const { createDockerProvider } = await import('../src/sandbox/docker/index.ts');
  let provider: Awaited<ReturnType<typeof createDockerProvider>>;
  try {
    provider = await createDockerProvider();
  } catch (e) {
    console.log(`docker: skipped (${(e as Error).message})`);
    return {
      docker_lifecycle_p50_ms: null,
      docker_create_p50_ms: null,
      docker_exec_p50_ms: null,
      docker_close_p50_ms: null,
      docker_removal_drain_ms: null,
      docker_cli_lifecycle_p50_ms: null,
      docker_storage_driver: null,
    };
  }
  const phases: number[][] = [];
  let drainMs: number;
  try {
    for (let i = 0; i < DOCKER_LIFECYCLE_RUNS + DOCKER_WARMUP_RUNS; i++) {
      const t0 = performance.now();
      const s = await provider.create({ image: IMAGE });
      const t1 = performance.now();
      const r = await s.exec(['python3', '-c', 'print(1)']);
      const t2 = performance.now();
      await s.close();
      const t3 = performance.now();
      if (r.stdout !== '1\n') throw new Error(`docker lifecycle exec printed ${JSON.stringify(r)}`);
      if (i >= DOCKER_WARMUP_RUNS) phases.push([t3 - t0, t1 - t0, t2 - t1, t3 - t2]);
    }
  } finally {
    const t = performance.now();
    await provider.close();
    drainMs = performance.now() - t;
  }
  const col = (c: number) => round(median(phases.map((p) => p[c]!)));
  console.log(
    `docker lifecycle: p50 ${col(0)} ms (create ${col(1)}, exec ${col(2)}, close ${col(3)}); ` +
      `removals drained in ${round(drainMs)} ms; storage driver ${provider.storageDriver}`,
  );

  const cliMs: number[] = [];
  for (let i = 0; i < DOCKER_LIFECYCLE_RUNS + DOCKER_WARMUP_RUNS; i++) {
    const t0 = performance.now();
    const out = await dockerCli(['run', '--rm', '--network', 'none', IMAGE, 'python3', '-c', 'print(1)']);
    if (out !== '1\n') throw new Error(`docker run printed ${JSON.stringify(out)}`);
    if (i >= DOCKER_WARMUP_RUNS) cliMs.push(performance.now() - t0);
  }
  console.log(`docker run --rm (CLI baseline): p50 ${round(median(cliMs))} ms`);
  return {
    docker_lifecycle_p50_ms: col(0),
    docker_create_p50_ms: col(1),
    docker_exec_p50_ms: col(2),
    docker_close_p50_ms: col(3),
    docker_removal_drain_ms: round(drainMs),
    docker_cli_lifecycle_p50_ms: round(median(cliMs)),
    docker_storage_driver: provider.storageDriver,
  };
}

async function dockerCli(args: string[]): Promise<string> {
  const { execFile } = await import('node:child_process');
  return new Promise((resolve, reject) =>
    execFile('docker', args, { timeout: 600_000 }, (e, stdout) => (e ? reject(e) : resolve(stdout))),
  );
}

// ── end of the docker part ──

/**
 * The local sandbox's attack tests (src/sandbox/local/escapes.local.test.ts, the seccomp probe from
 * inside, network.local.test.ts's connections to the host and private ranges, disk.local.test.ts's
 * disk fill, host-side-attacks.local.test.ts's archives and files made to hurt the host), run as a
 * suite: how many attacks were tried and how many were contained (the
 * same number, or the sandbox has a hole).
 */
async function benchEscapes(): Promise<{ escapes_tried: number; escapes_contained: number }> {
  const { execFile } = await import('node:child_process');
  const { readdirSync } = await import('node:fs');
  const dir = new URL('../src/sandbox/local/', import.meta.url).pathname;
  const files = readdirSync(dir)
    .filter((f) => /^(escapes|seccomp|network|disk|host-side-attacks)\.local\.test\.ts$/.test(f))
    .map((f) => join(dir, f));
  const tap = await new Promise<string>((resolve) =>
    execFile(
      process.execPath,
      ['--import', 'tsx', '--test', '--test-reporter=tap', ...files],
      { timeout: 600_000, maxBuffer: 64 * 1024 * 1024 },
      (_e, stdout) => resolve(stdout),
    ),
  );
  const count = (key: string) => Number(new RegExp(`^# ${key} (\\d+)$`, 'm').exec(tap)?.[1] ?? 0);
  const result = { escapes_tried: count('tests'), escapes_contained: count('pass') };
  console.log(`local escapes: ${result.escapes_contained}/${result.escapes_tried} attacks contained`);
  return result;
}

const local = await benchLocal();
const escapes = await benchEscapes();
const docker = await benchDocker();
const ratio =
  docker.docker_cli_lifecycle_p50_ms === null
    ? null
    : round(docker.docker_cli_lifecycle_p50_ms / local.local_lifecycle_p50_ms);
const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log(`host load average at the end: ${load}`);
console.log(JSON.stringify({ ...local, ...escapes, ...docker, ratio_docker_cli_over_local: ratio }));
