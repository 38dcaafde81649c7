import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { CLI, microData, smallMainArgs } from './train-support.ts';

const skip = process.getuid?.() === 0 ? false : 'the local provider needs root';

function run(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => {
    stdout += b.toString();
  });
  child.stderr.on('data', (b: Buffer) => {
    stderr += b.toString();
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.on('exit', (code, signal) => r({ code, signal })),
  );
  return { child, exit, out: () => stdout, err: () => stderr };
}

type Server = Awaited<ReturnType<typeof serve>>;

/** `sandgym engine serve` in its default mode, or with `--compat <compat>`; a new weights dir by default. */
async function serve(compat: string | undefined, weightsDir?: string) {
  const weights = weightsDir ?? (await mkdtemp(join(tmpdir(), 'sg-engine-weights-')));
  const server = run([
    CLI,
    'engine',
    'serve',
    '--port',
    '0',
    '--model',
    'tiny',
    '--weights-dir',
    weights,
    ...(compat ? ['--compat', compat] : []),
  ]);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const m = /TINKER_BASE_URL=(\S+)/.exec(server.out());
      if (m) {
        clearInterval(timer);
        resolve(m[1]!);
      }
    }, 50);
    void server.exit.then(({ code }) => {
      clearInterval(timer);
      reject(new Error(`engine serve exited (${code}): ${server.err()}`));
    });
  });
  const stop = (signal: NodeJS.Signals = 'SIGTERM') => {
    server.child.kill(signal);
    return server.exit;
  };
  return { url, weights, stop, restart: () => serve(compat, weights) };
}

/** Every file under `dir` (relative path → bytes). */
function snapshot(dir: string): Map<string, Buffer> {
  const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  return new Map(
    files.map((e) => [join(relative(dir, e.parentPath), e.name), readFileSync(join(e.parentPath, e.name))]),
  );
}

/** The tinker:// path each local checkpoint points to. */
function pointers(runDir: string): Map<string, string> {
  const root = join(runDir, 'checkpoints');
  return new Map(
    readdirSync(root)
      .filter((d) => /^[a-z]+-\d{6}$/.test(d))
      .map((d) => {
        const file = join(root, d, 'engine', 'tinker-checkpoint.json');
        return [d, (JSON.parse(readFileSync(file, 'utf8')) as { tinker_path: string }).tinker_path];
      }),
  );
}

const ARGS = [
  'trainer.engine=tinker',
  'trainer.total_training_steps=2',
  'trainer.save_freq=1',
  'trainer.max_ckpt_to_keep=2',
  'trainer.test_freq=0',
  'trainer.val_before_train=false',
  'algorithm.use_kl_in_reward=true',
  'algorithm.kl_ctrl.kl_coef=0.05',
];

/**
 * Each of engine serve's modes. The default one answers as hosted Tinker: it names the tokenizer and
 * the context, keeps gradient clipping. SkyRL's server names neither (the settings give them) and drops
 * grad_clip_norm, which the run says at the start.
 */
const MODES = [
  { compat: undefined, args: [], dropsGradClip: false, serverDies: true },
  {
    compat: 'skyrl',
    args: ['engine.tinker.tokenizer=sandgym/reference-byte', 'engine.tinker.max_context_tokens=1024'],
    dropsGradClip: true,
    serverDies: false,
  },
];

// The two modes' runs go side by side: each waits on round trips and sandboxes much of the time.
describe('sandgym main with trainer.engine=tinker against sandgym engine serve, in each mode', {
  skip,
  timeout: 900_000,
  concurrency: true,
}, () => {
  for (const mode of MODES) {
    const name = mode.compat ? `--compat ${mode.compat}` : 'default mode';
    const dies = mode.serverDies
      ? ', then a server killed mid-step stops it clearly and a rerun continues'
      : '';
    it(`${name}: trains with the KL penalty, survives kill -9, resumes from its last checkpoint${dies}, and prunes on the server`, async () => {
      const servers = { current: await serve(mode.compat) };
      try {
        await killResumeTrain(servers, [...ARGS, ...mode.args], mode);
      } finally {
        await servers.current.stop();
      }
    });
  }
});

async function killResumeTrain(
  servers: { current: Server },
  overrides: string[],
  { dropsGradClip, serverDies }: { dropsGradClip: boolean; serverDies: boolean },
): Promise<void> {
  let server = servers.current;
  let env = { ...process.env, TINKER_BASE_URL: server.url };
  const runDir = await mkdtemp(join(tmpdir(), 'sg-train-tinker-'));
  const data = await microData(4, 2);
  const args = smallMainArgs(runDir, data, overrides);
  const first = run(args, env);
  // Killed once step 1's checkpoint is complete (`latest` names it), during step 2's rollouts.
  const latest = join(runDir, 'checkpoints', 'latest');
  const watch = setInterval(() => {
    if (existsSync(latest) && readFileSync(latest, 'utf8').trim() === 'rl-000001') {
      clearInterval(watch);
      first.child.kill('SIGKILL');
    }
  }, 20);
  const ended = await first.exit;
  clearInterval(watch);
  assert.equal(ended.signal, 'SIGKILL', `the run ended before it was killed: ${first.err()}`);
  if (dropsGradClip) {
    assert.match(first.err(), /ignores grad_clip_norm/, 'SkyRL drops gradient clipping: said at the start');
  } else assert.doesNotMatch(first.err(), /ignores grad_clip_norm/);

  if (serverDies) {
    // The server dies (kill -9) once the rerun has resumed and started step 2: the run stops with an
    // error that names the server, and loses nothing it had written.
    const before = snapshot(runDir);
    const broken = run(args, env);
    const watchRun = setInterval(() => {
      if (/resumed from .*rl-000001/.test(broken.err())) {
        clearInterval(watchRun);
        void server.stop('SIGKILL');
      }
    }, 20);
    const stopped = await broken.exit;
    clearInterval(watchRun);
    assert.notEqual(stopped.code, 0, broken.err());
    assert.equal(stopped.signal, null);
    assert.match(broken.err(), new RegExp(`cannot reach the Tinker API at ${server.url}`));
    const after = snapshot(runDir);
    for (const [file, bytes] of before) {
      // Logs only grow; everything else is as it was.
      if (/\.(jsonl|log)$/.test(file))
        assert.ok(after.get(file)?.subarray(0, bytes.length).equals(bytes), file);
      else assert.ok(after.get(file)?.equals(bytes), `${file} changed`);
    }
    // The server comes back on the same weights (another port); the rerun continues from step 1.
    server = servers.current = await server.restart();
    env = { ...process.env, TINKER_BASE_URL: server.url };
  }

  const rerun = run(args, env);
  const { code } = await rerun.exit;
  assert.equal(code, 0, rerun.err());
  assert.match(rerun.err(), /resumed from .*rl-000001: phase rl, step 1/);
  assert.match(rerun.err(), /rl step 2\/2: reward/);

  const curve = JSON.parse(readFileSync(join(runDir, 'curve.json'), 'utf8')) as { phase: string }[];
  assert.equal(curve.at(-1)?.phase, 'rl');
  const rl = readFileSync(join(runDir, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, number>)
    .filter((m) => 'actor/loss' in m);
  assert.ok(rl.every((m) => Number.isFinite(m['actor/loss']) && Number.isFinite(m['kl/coef'])));

  // The kept checkpoints point at distinct server-side checkpoints named after their step, which
  // exist; the ones max_ckpt_to_keep dropped are gone from the server too.
  const kept = pointers(runDir);
  assert.deepEqual([...kept.keys()].sort(), ['rl-000001', 'rl-000002']);
  for (const [name, path] of kept) {
    assert.match(path, new RegExp(`^tinker://model_\\w+/weights/${name}-[0-9a-f]{6}$`));
    assert.ok(existsSync(join(server.weights, ...path.slice('tinker://'.length).split('/'))), path);
  }
  assert.equal(new Set(kept.values()).size, kept.size);
  const onServer = readdirSync(server.weights).flatMap((m) =>
    existsSync(join(server.weights, m, 'weights')) ? readdirSync(join(server.weights, m, 'weights')) : [],
  );
  // SFT's checkpoint was dropped, and deleted on the server; the KL reference policy stays.
  const steps = onServer.map((n) => n.slice(0, -'-000000'.length)).sort();
  assert.deepEqual(steps, ['reference-policy', 'rl-000001', 'rl-000002']);

  // Costly (a third run), so only in `npm run bench:tinker`: the resumed run ends with the same
  // server-side weights, optimizer and generator state, byte for byte, as one never interrupted.
  if (process.env.TINKER_TEST_COMPARE_UNINTERRUPTED === '1') {
    const wholeDir = await mkdtemp(join(tmpdir(), 'sg-train-tinker-whole-'));
    const whole = run(smallMainArgs(wholeDir, data, overrides), env);
    assert.equal((await whole.exit).code, 0, whole.err());
    const files = (tinkerPath: string) => {
      const dir = join(server.weights, ...tinkerPath.slice('tinker://'.length).split('/'));
      return new Map(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f))]));
    };
    const [a, b] = [files(pointers(wholeDir).get('rl-000002')!), files(kept.get('rl-000002')!)];
    assert.ok(a.size > 0, 'the checkpoint has files');
    assert.deepEqual([...b.keys()].sort(), [...a.keys()].sort());
    for (const [f, bytes] of a)
      assert.ok(bytes.equals(b.get(f)!), `${f} differs from the uninterrupted run's`);
  }
}
