import type { IncomingMessage } from 'node:http';
import { RpcError } from '../sandbox/e2b/index.ts';
import type { Sandbox } from '../sandbox/index.ts';
import { headerValue } from './http-io.ts';

/**
 * The user an envd call acts as: E2B's SDKs name it in `Authorization: Basic base64("<user>:")` (or,
 * on /files, a `username` query parameter). Undefined when none is named; root is the default.
 */
export function requestUser(req: IncomingMessage, url?: URL): string | undefined {
  const query = url?.searchParams.get('username');
  let user = query === null || query === undefined || query === '' ? undefined : query;
  const auth = headerValue(req, 'authorization');
  if (user === undefined && auth !== undefined) {
    const m = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(auth.trim());
    if (!m)
      throw new RpcError(
        'unauthenticated',
        'malformed Authorization header: Basic base64("<user>:") expected',
      );
    const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
    user = decoded.slice(0, decoded.indexOf(':') < 0 ? undefined : decoded.indexOf(':'));
  }
  if (user === undefined || user === '') return undefined;
  if (!/^[A-Za-z_][A-Za-z0-9_.-]{0,31}$/.test(user)) {
    throw new RpcError('invalid_argument', `invalid user name ${JSON.stringify(user.slice(0, 40))}`);
  }
  return user;
}

export interface SandboxAccount {
  name: string;
  uid: number;
  gid: number;
  home: string;
}

/** Looks `user` up in the sandbox's own /etc/passwd; a clear error when there is no such user. */
export async function sandboxAccount(sandbox: Sandbox, user: string): Promise<SandboxAccount> {
  const r = await sandbox.exec(['getent', 'passwd', user], { timeoutMs: 30_000 });
  const fields = r.stdout.trim().split(':');
  if (r.exitCode !== 0 || fields.length < 7) {
    throw new RpcError(
      'invalid_argument',
      `user '${user}' does not exist in this sandbox (add it with useradd as root, or use an image that has it)`,
    );
  }
  return { name: user, uid: Number(fields[2]), gid: Number(fields[3]), home: fields[5] || '/' };
}

/** `argv` run as `account` (util-linux setpriv: its uid, gid and groups). */
export function asAccount(argv: string[], account: SandboxAccount): string[] {
  return ['setpriv', `--reuid=${account.uid}`, `--regid=${account.gid}`, '--init-groups', ...argv];
}

/** The environment a user's command starts from (the caller's variables go on top). */
export function accountEnv(account: SandboxAccount): Record<string, string> {
  return { HOME: account.home, USER: account.name, LOGNAME: account.name };
}

/**
 * `sandbox` as `account` sees it, for the file calls (which run commands through exec and spawn): every
 * command runs as that user, so ownership and permissions are the user's. Everything else is the
 * sandbox's own.
 */
export function sandboxAs(sandbox: Sandbox, account: SandboxAccount): Sandbox {
  const argv = (command: string | readonly string[]) =>
    asAccount(typeof command === 'string' ? ['/bin/sh', '-c', command] : [...command], account);
  const env = (extra: Record<string, string> | undefined) => ({ ...accountEnv(account), ...extra });
  const view: Pick<Sandbox, 'exec' | 'spawn'> = {
    exec: (command, o = {}) => sandbox.exec(argv(command), { ...o, env: env(o.env) }),
    spawn: (command, o = {}) => sandbox.spawn(argv(command), { ...o, env: env(o.env) }),
  };
  return Object.assign(Object.create(sandbox) as Sandbox, view);
}
