/**
 * How a new process puts itself under a sandbox's limits before it execs: its pid written to some
 * cgroup.procs files, and (without cgroups) rlimits. One description, two renderings: arguments for
 * sandgym-helper, and shell lines (the cgroup tests' stand-in for it).
 */
export interface LimitEntry {
  procsFiles: string[];
  addressSpaceBytes?: number;
  fileSizeBytes?: number;
}

/** Shell lines that apply `entry` to the running shell (`$$`), joined with `&&`. */
export function entryScript(entry: LimitEntry): string {
  const lines = entry.procsFiles.map((f) => `echo $$ > '${f}'`);
  // dash's ulimit takes KiB for -v and 512-byte blocks for -f.
  if (entry.addressSpaceBytes !== undefined)
    lines.push(`ulimit -v ${Math.floor(entry.addressSpaceBytes / 1024)}`);
  if (entry.fileSizeBytes !== undefined) lines.push(`ulimit -f ${Math.floor(entry.fileSizeBytes / 512)}`);
  return lines.length > 0 ? lines.join(' && ') : 'true';
}

/** The LIMITS arguments of sandgym-helper (see helper/sandgym-helper.c). */
export function entryArgs(entry: LimitEntry): string[] {
  return [
    String(entry.procsFiles.length),
    ...entry.procsFiles,
    entry.addressSpaceBytes === undefined ? '-' : String(entry.addressSpaceBytes),
    entry.fileSizeBytes === undefined ? '-' : String(entry.fileSizeBytes),
  ];
}
