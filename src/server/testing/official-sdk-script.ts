/**
 * The official `e2b` npm SDK (a client no one here wrote) against an E2B-compatible server: create a
 * sandbox, run commands (one failing: the SDK throws CommandExitError), stream output, feed stdin,
 * write, read and list files, find the sandbox in the list, kill it and see it gone. Each step is a
 * check with what was seen; the SDK is a devDependency, loaded only when this runs.
 */
export interface SdkCheck {
  name: string;
  ok: boolean;
  detail: string;
}

export async function runOfficialSdkScript(o: {
  url: string;
  apiKey: string;
  template: string;
}): Promise<SdkCheck[]> {
  const { Sandbox, CommandExitError } = await import('e2b');
  const conn = { apiKey: o.apiKey, apiUrl: o.url, sandboxUrl: o.url, requestTimeoutMs: 60_000 };
  const checks: SdkCheck[] = [];
  const check = (name: string, ok: boolean, seen: unknown) =>
    checks.push({ name, ok, detail: typeof seen === 'string' ? seen : JSON.stringify(seen) });
  const purpose = `sdk-check-${process.pid}-${Date.now()}`;
  const sbx = await Sandbox.create(o.template, { ...conn, timeoutMs: 120_000, metadata: { purpose } });
  check('create', typeof sbx.sandboxId === 'string' && sbx.sandboxId.length > 0, sbx.sandboxId);
  try {
    const ran = await sbx.commands.run('echo hello from the sdk; echo to-stderr >&2');
    check(
      'run',
      ran.exitCode === 0 && ran.stdout === 'hello from the sdk\n' && ran.stderr === 'to-stderr\n',
      ran,
    );

    const failed = await sbx.commands.run('echo out; echo err >&2; exit 3').catch((e: unknown) => e);
    const exit = failed instanceof CommandExitError ? failed : undefined;
    check(
      'failing command throws CommandExitError with its output',
      exit?.exitCode === 3 && exit.stdout === 'out\n' && exit.stderr === 'err\n',
      exit ? { exitCode: exit.exitCode, stdout: exit.stdout, stderr: exit.stderr } : String(failed),
    );

    const streamed: string[] = [];
    await sbx.commands.run('for i in 1 2 3; do echo line$i; done', {
      onStdout: (d) => void streamed.push(d),
    });
    check('onStdout streams output', streamed.join('') === 'line1\nline2\nline3\n', streamed);

    const cat = await sbx.commands.run('cat', { background: true, stdin: true });
    await cat.sendStdin('fed through stdin\n');
    await sbx.commands.closeStdin(cat.pid);
    const catResult = await cat.wait();
    check('stdin', catResult.stdout === 'fed through stdin\n', catResult);

    await sbx.files.write('/tmp/sdk/hello.txt', 'written by the sdk\n');
    const read = await sbx.files.read('/tmp/sdk/hello.txt');
    check('write and read a file', read === 'written by the sdk\n', read);
    const entries = await sbx.files.list('/tmp/sdk');
    check(
      'list files',
      entries.some((e) => e.name === 'hello.txt' && e.type === 'file'),
      entries,
    );
    check('file exists', await sbx.files.exists('/tmp/sdk/hello.txt'), 'exists');

    const listed = await Sandbox.list({ ...conn, query: { metadata: { purpose } } }).nextItems();
    check(
      'list sandboxes by metadata',
      listed.length === 1 && listed[0]?.sandboxId === sbx.sandboxId,
      listed,
    );

    check('kill', await sbx.kill(), 'killed');
    const after = await Sandbox.list({ ...conn, query: { metadata: { purpose } } }).nextItems();
    check('killed sandbox is gone', after.length === 0, after);
  } finally {
    await sbx.kill().catch(() => {});
  }
  return checks;
}
