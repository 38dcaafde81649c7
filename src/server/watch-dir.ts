import type { ServerResponse } from 'node:http';
import { createInterface } from 'node:readline';
import { RpcError } from '../sandbox/e2b/index.ts';
import type { Sandbox } from '../sandbox/index.ts';
import { ServerStream } from './connect-server.ts';
import { resolveSandboxPath } from './sandbox-paths.ts';

/**
 * envd's `filesystem.Filesystem/WatchDir`: a watcher runs inside the sandbox (python3 and the kernel's
 * inotify through ctypes, so the image needs nothing more than python3) and prints one JSON line per
 * event; the server streams them as envd's `filesystem` events, with a `start` first and keepalives
 * in quiet times. The watcher dies when the client goes away or the sandbox ends. Event types follow
 * envd's (fsnotify's) mapping of inotify: create or moved-in = CREATE, modify = WRITE, delete = REMOVE,
 * moved-out = RENAME, attributes = CHMOD. Names are relative to the watched directory.
 */
const WATCHER = String.raw`
import ctypes, json, os, struct, sys
root, recursive = sys.argv[1], sys.argv[2] == "1"
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(0)
# MODIFY ATTRIB MOVED_FROM MOVED_TO CREATE DELETE DELETE_SELF MOVE_SELF
MASK = 0x2 | 0x4 | 0x40 | 0x80 | 0x100 | 0x200 | 0x400 | 0x800
wds = {}
def add(path):
    wd = libc.inotify_add_watch(fd, os.fsencode(path), MASK)
    if wd >= 0:
        wds[wd] = path
    return wd >= 0
if not os.path.isdir(root):
    print(json.dumps(["error", "not_found" if not os.path.exists(root) else "not_dir"]), flush=True)
    sys.exit(2)
if fd < 0 or not add(root):
    print(json.dumps(["error", os.strerror(ctypes.get_errno())]), flush=True)
    sys.exit(3)
if recursive:
    for d, subdirs, _ in os.walk(root):
        for s in subdirs:
            add(os.path.join(d, s))
print(json.dumps(["start"]), flush=True)
TYPES = ((0x100 | 0x80, "EVENT_TYPE_CREATE"), (0x2, "EVENT_TYPE_WRITE"), (0x200 | 0x400, "EVENT_TYPE_REMOVE"),
         (0x40 | 0x800, "EVENT_TYPE_RENAME"), (0x4, "EVENT_TYPE_CHMOD"))
while True:
    buf = os.read(fd, 65536)
    i = 0
    while i < len(buf):
        wd, mask, _, n = struct.unpack_from("iIII", buf, i)
        name = os.fsdecode(buf[i + 16:i + 16 + n].rstrip(b"\0"))
        i += 16 + n
        base = wds.get(wd)
        if base is None:
            continue
        full = os.path.join(base, name) if name else base
        if recursive and mask & 0x40000000 and mask & (0x100 | 0x80):
            add(full)
        for bits, kind in TYPES:
            if mask & bits:
                sys.stdout.write(json.dumps(["event", kind, os.path.relpath(full, root)]) + "\n")
    sys.stdout.flush()
`;

export async function watchDir(
  sandbox: Sandbox,
  message: Record<string, unknown>,
  res: ServerResponse,
  keepaliveMs: number,
): Promise<void> {
  let path: string;
  try {
    path = resolveSandboxPath(message.path);
  } catch (e) {
    throw new RpcError('invalid_argument', (e as Error).message);
  }
  const proc = await sandbox.spawn(['python3', '-c', WATCHER, path, message.recursive === true ? '1' : '0'], {
    stdin: false,
  });
  proc.stderr.resume();
  const gone = () => proc.kill('SIGKILL');
  res.once('close', gone);
  const lines = createInterface({ input: proc.stdout });
  let stream: ServerStream | undefined;
  let keepalive: NodeJS.Timeout | undefined;
  try {
    for await (const line of lines) {
      const [kind, a, b] = JSON.parse(line) as [string, string?, string?];
      if (kind === 'error') {
        throw a === 'not_found'
          ? new RpcError('not_found', `path not found: ${path}`)
          : a === 'not_dir'
            ? new RpcError('invalid_argument', `path is not a directory: ${path}`)
            : new RpcError('internal', `cannot watch ${path}: ${a}`);
      }
      if (kind === 'start') {
        const s = new ServerStream(res);
        stream = s;
        s.send({ start: {} });
        keepalive = setInterval(() => s.send({ keepalive: {} }), keepaliveMs);
      } else if (stream) stream.send({ filesystem: { name: b, type: a } });
    }
    const exit = await proc.exited;
    if (!stream) throw new RpcError('internal', `the watcher of ${path} failed (exit ${exit.exitCode})`);
    stream.end(undefined, res.destroyed ? undefined : new RpcError('unavailable', 'the sandbox stopped'));
  } finally {
    clearInterval(keepalive);
    res.off('close', gone);
    proc.kill('SIGKILL');
  }
}
