/**
 * Derives src/sandbox/local/fixtures/docker-default-seccomp.json from Docker's default seccomp profile
 * (moby/profiles seccomp/default.json): what it allows a container with Docker's default capabilities
 * on x86_64 (kernel >= 4.8), so seccomp.test.ts can compare our filter with it offline.
 *
 *   node --import tsx scripts/gen-seccomp-fixture.ts DEFAULT_JSON COMMIT > src/sandbox/local/fixtures/docker-default-seccomp.json
 */
import { readFileSync } from 'node:fs';
import { DOCKER_CAPS } from '../src/sandbox/local/launch-init.ts';

interface Entry {
  names: string[];
  action: string;
  errnoRet?: number;
  args?: { index: number; value: number; valueTwo?: number; op: string }[];
  includes?: { caps?: string[]; arches?: string[]; minKernel?: string };
  excludes?: { caps?: string[]; arches?: string[] };
}

const ARCH = 'amd64';

const [path, commit] = process.argv.slice(2);
if (!path || !commit) throw new Error('usage: gen-seccomp-fixture.ts DEFAULT_JSON COMMIT');
const profile = JSON.parse(readFileSync(path, 'utf8')) as { defaultErrnoRet: number; syscalls: Entry[] };

const applies = (e: Entry) =>
  (e.includes?.caps ?? []).every((c) => (DOCKER_CAPS as readonly string[]).includes(c)) &&
  (e.includes?.arches === undefined || e.includes.arches.includes(ARCH)) &&
  !(e.excludes?.caps ?? []).some((c) => (DOCKER_CAPS as readonly string[]).includes(c)) &&
  !(e.excludes?.arches ?? []).includes(ARCH);

const allow = new Set<string>();
const argRules: { name: string; arg: number; op: string; value: number; valueTwo: number }[] = [];
const errno: { name: string; errno: number }[] = [];
for (const e of profile.syscalls.filter(applies)) {
  for (const name of e.names) {
    if (e.action === 'SCMP_ACT_ERRNO') errno.push({ name, errno: e.errnoRet ?? profile.defaultErrnoRet });
    else if (e.args?.length)
      for (const a of e.args)
        argRules.push({ name, arg: a.index, op: a.op, value: a.value, valueTwo: a.valueTwo ?? 0 });
    else allow.add(name);
  }
}
const mentioned = new Set(profile.syscalls.flatMap((e) => e.names));
const ruled = new Set([...allow, ...argRules.map((r) => r.name), ...errno.map((r) => r.name)]);
const fixture = {
  source: `moby/profiles seccomp/default.json at ${commit}`,
  arch: 'x86_64',
  caps: DOCKER_CAPS,
  defaultErrno: profile.defaultErrnoRet,
  allow: [...allow].sort(),
  argRules,
  errno,
  /** Named in the profile, but only for capabilities or architectures a default container lacks. */
  gated: [...mentioned].filter((n) => !ruled.has(n)).sort(),
};
process.stdout.write(`${JSON.stringify(fixture, null, 1)}\n`);
