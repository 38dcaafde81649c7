import type { ConfigError } from '../errors.ts';
import { RpcError } from '../sandbox/e2b/index.ts';
import type { Sandbox } from '../sandbox/index.ts';
import { type EntryInfoJson, FIND_ENTRY_FORMAT, parseFindEntries } from './parse-fs-entries.ts';
import { resolveSandboxPath } from './sandbox-paths.ts';

/**
 * envd's `filesystem.Filesystem` service (Stat, MakeDir, Move, ListDir, Remove) on the Sandbox
 * contract: each call is one shell command inside the sandbox, so every path is resolved in the
 * sandbox's own filesystem and can never reach the host. The sandbox image needs GNU find.
 */
const SCRIPT = `
entry() { find "$1" -maxdepth 0 -printf '${FIND_ENTRY_FORMAT}'; }
exists() { [ -e "$1" ] || [ -L "$1" ]; }
op=$1; shift
case $op in
  stat) exists "$1" || exit 2; entry "$1" ;;
  list) exists "$1" || exit 2; [ -d "$1" ] || exit 3
        find -H "$1" -mindepth 1 -maxdepth "$2" -printf '${FIND_ENTRY_FORMAT}' ;;
  mkdir) [ -d "$1" ] && exit 4; exists "$1" && exit 5; mkdir -p -- "$1" && entry "$1" ;;
  move) exists "$1" || exit 2; mkdir -p -- "$(dirname -- "$2")" && mv -T -- "$1" "$2" && entry "$2" ;;
  remove) rm -rf -- "$1" ;;
esac`;

const EXIT_ERRORS: Record<number, (path: string) => RpcError> = {
  2: (p) => new RpcError('not_found', `path not found: ${p}`),
  3: (p) => new RpcError('invalid_argument', `path is not a directory: ${p}`),
  4: (p) => new RpcError('already_exists', `directory already exists: ${p}`),
  5: (p) => new RpcError('invalid_argument', `path already exists but it is not a directory: ${p}`),
  127: () =>
    new RpcError(
      'failed_precondition',
      'the sandbox image lacks GNU find, which the filesystem service needs',
    ),
};

const FS_TIMEOUT_MS = 120_000;
const MAX_LISTING_BYTES = 64 * 1024 * 1024;
const MAX_DEPTH = 64;

export async function filesystemCall(
  sandbox: Sandbox,
  method: string,
  message: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  switch (method) {
    case 'Stat':
      return { entry: (await run(sandbox, 'stat', [path(message.path)]))[0] };
    case 'ListDir': {
      const depth = message.depth === undefined || message.depth === 0 ? 1 : message.depth;
      if (typeof depth !== 'number' || !Number.isInteger(depth) || depth < 1 || depth > MAX_DEPTH) {
        throw new RpcError('invalid_argument', `depth must be an integer from 1 to ${MAX_DEPTH}`);
      }
      return { entries: await run(sandbox, 'list', [path(message.path), String(depth)]) };
    }
    case 'MakeDir':
      return { entry: (await run(sandbox, 'mkdir', [path(message.path)]))[0] };
    case 'Move': {
      const [source, destination] = [
        path(message.source, 'source'),
        path(message.destination, 'destination'),
      ];
      return { entry: (await run(sandbox, 'move', [source, destination]))[0] };
    }
    case 'Remove':
      await run(sandbox, 'remove', [path(message.path)]);
      return {};
    default:
      throw new RpcError(
        'unimplemented',
        `filesystem.Filesystem/${method} is not served by sandgym serve (Stat, MakeDir, Move, ListDir, Remove are)`,
      );
  }
}

function path(value: unknown, field = 'path'): string {
  try {
    return resolveSandboxPath(value, field);
  } catch (e) {
    throw new RpcError('invalid_argument', (e as ConfigError).message);
  }
}

async function run(sandbox: Sandbox, op: string, args: string[]): Promise<EntryInfoJson[]> {
  const r = await sandbox.exec(['/bin/sh', '-c', SCRIPT, 'sh', op, ...args], {
    timeoutMs: FS_TIMEOUT_MS,
    maxOutputBytes: MAX_LISTING_BYTES,
    cwd: '/',
  });
  if (r.exitCode !== 0) {
    const known = EXIT_ERRORS[r.exitCode];
    if (known) throw known(args[0]!);
    const why = r.timedOut ? `timed out after ${FS_TIMEOUT_MS} ms` : r.stderr.trim() || `exit ${r.exitCode}`;
    throw new RpcError('internal', `${op} ${args[0]} failed: ${why}`);
  }
  if (r.truncated)
    throw new RpcError('resource_exhausted', `listing of ${args[0]} is over ${MAX_LISTING_BYTES} bytes`);
  return parseFindEntries(r.stdout);
}
