/**
 * The official `e2b` npm SDK (a client no one here wrote) against an E2B-compatible server, feature by
 * feature as its documentation presents them: sandbox lifecycle, commands (streaming, stdin, background,
 * list, kill, reattach), files (read, write, list, stat, make, rename, remove, watch, signed URLs),
 * snapshots, pause and resume, metrics. Each step is a check with what was seen (an SDK error is
 * recorded with its class and message, not thrown), so one failure does not hide the rest. The SDK is a
 * devDependency, loaded only when this runs.
 */
export interface SdkCheck {
  name: string;
  ok: boolean;
  detail: string;
}

type E2B = typeof import('e2b');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runOfficialSdkScript(o: {
  url: string;
  apiKey: string;
  template: string;
}): Promise<SdkCheck[]> {
  const sdk = (await import('e2b')) as unknown as E2B;
  const { Sandbox } = sdk;
  const conn = { apiKey: o.apiKey, apiUrl: o.url, sandboxUrl: o.url, requestTimeoutMs: 60_000 };
  const checks: SdkCheck[] = [];
  const record = (name: string, ok: boolean, seen: unknown) =>
    checks.push({ name, ok, detail: typeof seen === 'string' ? seen : JSON.stringify(seen) });
  /** Runs one feature's check; a throw is recorded as a failure with the SDK's error. */
  const check = async (name: string, fn: () => Promise<[boolean, unknown]>) => {
    try {
      const [ok, seen] = await fn();
      record(name, ok, seen);
    } catch (e) {
      record(name, false, `${(e as Error).name}: ${(e as Error).message}`);
    }
  };
  const purpose = `sdk-check-${process.pid}-${Date.now()}`;
  const sbx = await Sandbox.create(o.template, { ...conn, timeoutMs: 120_000, metadata: { purpose } });
  record('create', typeof sbx.sandboxId === 'string' && sbx.sandboxId.length > 0, sbx.sandboxId);
  try {
    await lifecycleChecks(sdk, sbx, conn, purpose, check);
    await commandChecks(sdk, sbx, check);
    await fileChecks(sdk, sbx, check);
    await urlChecks(sbx, check);
    await extraChecks(sdk, sbx, conn, check);
    await check('kill', async () => [await sbx.kill(), 'killed']);
    await check('killed sandbox is gone', async () => {
      const after = await Sandbox.list({ ...conn, query: { metadata: { purpose } } }).nextItems();
      return [after.length === 0, after];
    });
  } finally {
    await sbx.kill().catch(() => {});
  }
  return checks;
}

type Check = (name: string, fn: () => Promise<[boolean, unknown]>) => Promise<void>;
type SandboxT = InstanceType<E2B['Sandbox']>;
type Conn = { apiKey: string; apiUrl: string; sandboxUrl: string; requestTimeoutMs: number };

async function lifecycleChecks(sdk: E2B, sbx: SandboxT, conn: Conn, purpose: string, check: Check) {
  const { Sandbox } = sdk;
  await check('list sandboxes by metadata', async () => {
    const listed = await Sandbox.list({ ...conn, query: { metadata: { purpose } } }).nextItems();
    return [listed.length === 1 && listed[0]?.sandboxId === sbx.sandboxId, listed];
  });
  await check('getInfo', async () => {
    const info = await sbx.getInfo();
    return [info.sandboxId === sbx.sandboxId && info.metadata.purpose === purpose, info];
  });
  await check('isRunning', async () => [await sbx.isRunning(), 'running']);
  await check('setTimeout extends the end', async () => {
    const before = (await sbx.getInfo()).endAt.getTime();
    await sbx.setTimeout(300_000);
    const after = (await sbx.getInfo()).endAt.getTime();
    return [after > before, { before, after }];
  });
  await check('connect to a running sandbox by id', async () => {
    const again = await Sandbox.connect(sbx.sandboxId, conn);
    const r = await again.commands.run('echo connected');
    return [r.stdout === 'connected\n', r];
  });
  await check('create with no template (base)', async () => {
    const s = await Sandbox.create({ ...conn, timeoutMs: 60_000 });
    try {
      const r = await s.commands.run('echo base');
      return [r.stdout === 'base\n', r];
    } finally {
      await s.kill();
    }
  });
}

/** Features past the core: each passes when it works, or (where noted) when it is refused clearly. */
async function extraChecks(sdk: E2B, sbx: SandboxT, conn: Conn, check: Check) {
  const { Sandbox } = sdk;
  await check('getMetrics', async () => {
    const m = await sbx.getMetrics();
    return [
      m.length > 0 && m.every((x) => x.memTotal > 0 && x.memUsed > 0 && x.diskTotal > 0 && x.cpuCount >= 1),
      m,
    ];
  });
  await check('snapshots: create, list, delete', async () => {
    const snap = await sbx.createSnapshot();
    const listed = await sbx.listSnapshots().nextItems();
    const deleted = await Sandbox.deleteSnapshot(snap.snapshotId, conn);
    const after = await sbx.listSnapshots().nextItems();
    return [
      listed.some((x) => x.snapshotId === snap.snapshotId) &&
        deleted &&
        !after.some((x) => x.snapshotId === snap.snapshotId),
      { snap, listed, deleted, after },
    ];
  });
  await check('pause freezes, then connect resumes', async () => {
    const s = await Sandbox.create({ ...conn, timeoutMs: 60_000 });
    try {
      await s.files.write('/tmp/kept.txt', 'kept');
      // A ticker counts tenths of a second: over 3 s of pause it would tick ~30 times if not frozen; the
      // moments around the pause and resume calls may add a few (generously: 15 on a loaded host).
      await s.commands.run('n=0; while :; do n=$((n+1)); echo $n > /tmp/ticks; sleep 0.1; done', {
        background: true,
      });
      await sleep(500);
      const t0 = Number(await s.files.read('/tmp/ticks'));
      const paused = await s.pause();
      const state = (await s.getInfo()).state;
      const whilePaused = await s.files.read('/tmp/ticks').then(
        () => 'served',
        (e: Error) => `refused: ${e.message}`,
      );
      await sleep(3000);
      const resumed = await Sandbox.connect(s.sandboxId, conn);
      const t1 = Number(await resumed.files.read('/tmp/ticks'));
      const kept = await resumed.files.read('/tmp/kept.txt');
      return [
        paused && state === 'paused' && kept === 'kept' && whilePaused.startsWith('refused') && t1 - t0 < 15,
        { paused, state, kept, whilePaused, ticksAcrossPause: t1 - t0 },
      ];
    } finally {
      await s.kill();
    }
  });
  await check('getHost(port) traffic reaches a server in the sandbox', async () => {
    await sbx.files.write('/tmp/site/index.html', 'served from inside\n');
    let serving: () => void = () => {};
    const ready = new Promise<void>((resolve) => {
      serving = resolve;
    });
    await sbx.commands.run('cd /tmp/site && python3 -u -m http.server 8765', {
      background: true,
      onStdout: (d) => {
        if (d.includes('Serving HTTP')) serving();
      },
    });
    await Promise.race([ready, sleep(30_000)]);
    // getHost names <port>-<id>.<domain>; with one sandbox URL for all, E2B's routing headers say the same.
    const port = sbx.getHost(8765).split('-')[0];
    const res = await fetch(`${conn.sandboxUrl}/index.html`, {
      headers: {
        'E2b-Sandbox-Id': sbx.sandboxId,
        'E2b-Sandbox-Port': String(port),
        'X-Access-Token': (sbx as unknown as { envdAccessToken: string }).envdAccessToken,
      },
    });
    const body = await res.text();
    return [res.status === 200 && body === 'served from inside\n', { status: res.status, body }];
  });
  await check('network allowOut is enforced or refused with a message', async () => {
    const e = await Sandbox.create({ ...conn, timeoutMs: 60_000, network: { allowOut: ['8.8.8.8'] } }).then(
      async (s) => {
        await s.kill();
        return undefined;
      },
      (x: unknown) => x,
    );
    return [e instanceof Error && /allowOut|network/i.test(e.message), String(e)];
  });
}

async function commandChecks(sdk: E2B, sbx: SandboxT, check: Check) {
  const { CommandExitError } = sdk;
  await check('run', async () => {
    const ran = await sbx.commands.run('echo hello from the sdk; echo to-stderr >&2');
    return [ran.exitCode === 0 && ran.stdout === 'hello from the sdk\n' && ran.stderr === 'to-stderr\n', ran];
  });
  await check('failing command throws CommandExitError with its output', async () => {
    const failed = await sbx.commands.run('echo out; echo err >&2; exit 3').catch((e: unknown) => e);
    const exit = failed instanceof CommandExitError ? failed : undefined;
    return [
      exit?.exitCode === 3 && exit.stdout === 'out\n' && exit.stderr === 'err\n',
      exit ? { exitCode: exit.exitCode, stdout: exit.stdout, stderr: exit.stderr } : String(failed),
    ];
  });
  await check('onStdout streams output', async () => {
    const streamed: string[] = [];
    await sbx.commands.run('for i in 1 2 3; do echo line$i; done', {
      onStdout: (d) => void streamed.push(d),
    });
    return [streamed.join('') === 'line1\nline2\nline3\n', streamed];
  });
  await check('cwd and envs', async () => {
    const r = await sbx.commands.run('pwd; echo $GREETING', { cwd: '/tmp', envs: { GREETING: 'hi' } });
    return [r.stdout === '/tmp\nhi\n', r];
  });
  await check('user: commands run as the named user, in its home; an unknown user is refused', async () => {
    await sbx.commands.run('id -u user >/dev/null 2>&1 || useradd -m -u 1000 user');
    const r = await sbx.commands.run('whoami; pwd; echo $HOME; touch mine; stat -c %U mine', {
      user: 'user',
    });
    const unknown = await sbx.commands.run('whoami', { user: 'nobody-here' }).catch((e: unknown) => e);
    return [
      r.stdout === 'user\n/home/user\n/home/user\nuser\n' &&
        unknown instanceof Error &&
        /does not exist/.test(unknown.message),
      { stdout: r.stdout, unknown: String(unknown) },
    ];
  });
  await check('stdin', async () => {
    const cat = await sbx.commands.run('cat', { background: true, stdin: true });
    await cat.sendStdin('fed through stdin\n');
    await sbx.commands.closeStdin(cat.pid);
    const r = await cat.wait();
    return [r.stdout === 'fed through stdin\n', r];
  });
  await check('timeoutMs ends a command', async () => {
    const e = await sbx.commands.run('sleep 30', { timeoutMs: 1000 }).catch((x: unknown) => x);
    return [e instanceof Error && !(e instanceof CommandExitError && e.exitCode === 0), String(e)];
  });
  await check('background command: list, then kill', async () => {
    const h = await sbx.commands.run('sleep 30', { background: true });
    const listed = await sbx.commands.list();
    const seen = listed.some((p) => p.pid === h.pid && p.cmd === '/bin/bash');
    const killed = await h.kill();
    const r = await h.wait().catch((e: unknown) => e);
    const after = await sbx.commands.list();
    return [
      seen && killed && r instanceof CommandExitError && !after.some((p) => p.pid === h.pid),
      { listed, killed, result: String(r) },
    ];
  });
  await check('commands.kill(pid) right after start leaves nothing running', async () => {
    const h = await sbx.commands.run('sleep 3; echo survived', { background: true });
    const killed = await sbx.commands.kill(h.pid);
    const r = await h.wait().catch((e: unknown) => e);
    const survived = r instanceof CommandExitError ? r.stdout : (r as { stdout?: string }).stdout;
    return [killed && !String(survived).includes('survived'), { killed, result: String(r) }];
  });
  await check('commands.connect(pid) reattaches to output and exit', async () => {
    // Long enough that a loaded host's disconnect and re-attach happen before the command ends.
    const h = await sbx.commands.run('sleep 2; echo late; exit 4', { background: true });
    await h.disconnect();
    const again = await sbx.commands.connect(h.pid);
    const r = await again.wait().catch((e: unknown) => e);
    return [r instanceof CommandExitError && r.exitCode === 4 && r.stdout.includes('late'), String(r)];
  });
  await check('pty.create runs a shell, resize resizes it', async () => {
    let out = '';
    const h = await sbx.pty.create({
      cols: 80,
      rows: 24,
      onData: (d) => {
        out += new TextDecoder().decode(d);
      },
    });
    await sbx.pty.resize(h.pid, { cols: 100, rows: 30 });
    await sbx.pty.sendInput(h.pid, new TextEncoder().encode('echo pty-$((6*7)); stty size\nexit\n'));
    await h.wait().catch(() => {});
    return [out.includes('pty-42') && out.includes('30 100'), out];
  });
}

async function fileChecks(sdk: E2B, sbx: SandboxT, check: Check) {
  const { FileType } = sdk;
  await check('write and read a file', async () => {
    await sbx.files.write('/tmp/sdk/hello.txt', 'written by the sdk\n');
    const read = await sbx.files.read('/tmp/sdk/hello.txt');
    return [read === 'written by the sdk\n', read];
  });
  await check('read bytes', async () => {
    await sbx.files.write('/tmp/sdk/bytes.bin', new Uint8Array([0, 1, 2, 255]).buffer);
    const b = await sbx.files.read('/tmp/sdk/bytes.bin', { format: 'bytes' });
    return [Buffer.from(b).equals(Buffer.from([0, 1, 2, 255])), [...b]];
  });
  await check('write several files', async () => {
    const infos = await sbx.files.write([
      { path: '/tmp/sdk/many/a.txt', data: 'a' },
      { path: '/tmp/sdk/many/b.txt', data: 'b' },
    ]);
    const b = await sbx.files.read('/tmp/sdk/many/b.txt');
    return [infos.length === 2 && b === 'b', infos];
  });
  await check('list files', async () => {
    const entries = await sbx.files.list('/tmp/sdk');
    return [entries.some((e) => e.name === 'hello.txt' && e.type === FileType.FILE), entries];
  });
  await check('file exists', async () => [
    (await sbx.files.exists('/tmp/sdk/hello.txt')) && !(await sbx.files.exists('/tmp/sdk/nope')),
    'exists',
  ]);
  await check('getInfo of a file', async () => {
    const info = await sbx.files.getInfo('/tmp/sdk/hello.txt');
    return [info.type === FileType.FILE && info.size === 19, info];
  });
  await check('makeDir', async () => {
    const made = await sbx.files.makeDir('/tmp/sdk/made/deep');
    const again = await sbx.files.makeDir('/tmp/sdk/made/deep');
    return [
      made && !again && (await sbx.files.getInfo('/tmp/sdk/made/deep')).type === FileType.DIR,
      { made, again },
    ];
  });
  await check('rename', async () => {
    const info = await sbx.files.rename('/tmp/sdk/many/a.txt', '/tmp/sdk/many/c.txt');
    const moved = await sbx.files.read('/tmp/sdk/many/c.txt');
    return [
      info.path === '/tmp/sdk/many/c.txt' &&
        moved === 'a' &&
        !(await sbx.files.exists('/tmp/sdk/many/a.txt')),
      info,
    ];
  });
  await check('remove', async () => {
    await sbx.files.remove('/tmp/sdk/many');
    return [!(await sbx.files.exists('/tmp/sdk/many')), 'removed'];
  });
  await check('files as another user: written, owned and read as that user', async () => {
    await sbx.commands.run('id -u user >/dev/null 2>&1 || useradd -m -u 1000 user');
    await sbx.files.write('/home/user/mine.txt', 'by user\n', { user: 'user' });
    const owner = (await sbx.commands.run('stat -c %U /home/user/mine.txt')).stdout;
    const read = await sbx.files.read('/home/user/mine.txt', { user: 'user' });
    const denied = await sbx.files
      .write('/root/not-yours.txt', 'x', { user: 'user' })
      .catch((e: unknown) => e);
    return [
      owner === 'user\n' && read === 'by user\n' && denied instanceof Error,
      { owner, read, denied: String(denied) },
    ];
  });
  await check('reading a missing file throws NotFoundError', async () => {
    const e = await sbx.files.read('/tmp/sdk/missing.txt').catch((x: unknown) => x);
    return [e instanceof sdk.NotFoundError, String(e)];
  });
  await check('watchDir sees a write', async () => {
    const events: { name: string; type: string }[] = [];
    await sbx.files.makeDir('/tmp/sdk/watched');
    const handle = await sbx.files.watchDir(
      '/tmp/sdk/watched',
      (e) => void events.push({ name: e.name, type: e.type }),
    );
    try {
      await sbx.files.write('/tmp/sdk/watched/new.txt', 'x');
      for (let i = 0; i < 50 && !events.some((e) => e.name === 'new.txt'); i++) await sleep(100);
      return [events.some((e) => e.name === 'new.txt'), events];
    } finally {
      await handle.stop();
    }
  });
  await check('a stopped watchDir leaves no watcher running', async () => {
    // The watcher's command line holds its python source, which names inotify_add_watch.
    const count = `for p in /proc/[0-9]*; do tr "\\0" " " < $p/cmdline 2>/dev/null | grep -c "inotify_add""_watch"; done | grep -c 1 || true`;
    let left = '';
    for (let i = 0; i < 50; i++) {
      left = (await sbx.commands.run(count)).stdout.trim();
      if (left === '0') break;
      await sleep(100);
    }
    return [left === '0', `${left} watcher(s) left`];
  });
}

async function urlChecks(sbx: SandboxT, check: Check) {
  await check('uploadUrl takes a file', async () => {
    const url = await sbx.uploadUrl('/tmp/sdk/uploaded.txt');
    const form = new FormData();
    form.append('file', new Blob(['via signed url\n']), 'uploaded.txt');
    const res = await fetch(url, { method: 'POST', body: form });
    const read = res.ok ? await sbx.files.read('/tmp/sdk/uploaded.txt') : await res.text();
    return [res.ok && read === 'via signed url\n', { status: res.status, read }];
  });
  await check('downloadUrl serves a file', async () => {
    const url = await sbx.downloadUrl('/tmp/sdk/hello.txt', { useSignatureExpiration: 60 });
    const res = await fetch(url);
    const body = await res.text();
    return [res.ok && body === 'written by the sdk\n', { status: res.status, body }];
  });
  await check('a downloadUrl with a wrong signature is refused', async () => {
    const url = new URL(await sbx.downloadUrl('/tmp/sdk/hello.txt'));
    url.searchParams.set('path', '/etc/passwd');
    const res = await fetch(url);
    return [res.status === 401, { status: res.status, body: await res.text() }];
  });
}
