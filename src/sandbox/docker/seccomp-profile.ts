import { readFileSync } from 'node:fs';

/** What `scripts/gen-seccomp-fixture.ts` derives from moby's default profile (for Docker's 14 default caps). */
export interface DerivedSeccompRules {
  source: string;
  defaultErrno: number;
  allow: string[];
  argRules: { name: string; arg: number; op: string; value: number; valueTwo: number }[];
  errno: { name: string; errno: number }[];
}

/**
 * A Docker seccomp profile (the JSON the engine takes in `SecurityOpt: seccomp=…`) with the same rules as
 * the local sandboxes' filter: the current moby default profile. The engine's built-in profile is the one
 * it shipped with; Debian's Docker 20.10 still allows io_uring and AF_VSOCK/AF_ALG sockets, which later
 * profiles refuse. Each argument rule is an entry of its own: entries are alternatives, the arguments
 * within one entry must all hold. x86_64 only: a 32-bit or x32 call is not in the filter's architectures.
 */
export function dockerSeccompProfile(rules: DerivedSeccompRules): string {
  return JSON.stringify({
    defaultAction: 'SCMP_ACT_ERRNO',
    defaultErrnoRet: rules.defaultErrno,
    architectures: ['SCMP_ARCH_X86_64'],
    syscalls: [
      { names: rules.allow, action: 'SCMP_ACT_ALLOW' },
      ...rules.argRules.map((r) => ({
        names: [r.name],
        action: 'SCMP_ACT_ALLOW',
        args: [{ index: r.arg, value: r.value, valueTwo: r.valueTwo, op: r.op }],
      })),
      ...rules.errno.map((r) => ({ names: [r.name], action: 'SCMP_ACT_ERRNO', errnoRet: r.errno })),
    ],
  });
}

const RULES_FILE = new URL('../local/fixtures/docker-default-seccomp.json', import.meta.url);

/** The profile every docker sandbox runs under, built once from the rules the local filter is checked against. */
export const SANDBOX_SECCOMP_PROFILE =
  process.arch === 'x64'
    ? dockerSeccompProfile(JSON.parse(readFileSync(RULES_FILE, 'utf8')) as DerivedSeccompRules)
    : undefined;
