import { engineMessage } from './docker-api.ts';

/**
 * Whether the engine can hold a container to a disk size (`HostConfig.StorageOpt.size`), from its
 * storage driver: btrfs and zfs (sub-volume quotas) can; overlay2 and vfs can only on xfs mounted with
 * `pquota`, which `docker info` does not show, so they are tried and the first refusal settles it;
 * anything else cannot.
 */
export type DiskQuotaSupport = 'yes' | 'try' | 'no';

export function diskQuotaSupport(info: {
  Driver?: string;
  DriverStatus?: [string, string][];
}): DiskQuotaSupport {
  const driver = info.Driver ?? '';
  if (driver === 'btrfs' || driver === 'zfs' || driver === 'devicemapper') return 'yes';
  const backing = info.DriverStatus?.find(([key]) => key === 'Backing Filesystem')?.[1];
  if ((driver === 'overlay2' || driver === 'vfs') && backing === 'xfs') return 'try';
  return 'no';
}

/** The engine refused `StorageOpt` because its storage driver cannot enforce it. */
export function isDiskQuotaRefusal(e: unknown): boolean {
  return /storage-?opt|storage opt|pquota|quota.*not.*(supported|enabled)/i.test(engineMessage(e));
}

export function diskQuotaWarning(driver: string): string {
  return (
    `the Docker storage driver "${driver}" cannot limit a container's disk, so limits.diskBytes is NOT ` +
    'enforced for docker sandboxes: only single files are capped at diskBytes (RLIMIT_FSIZE), and many ' +
    'files together can still fill the host disk. To enforce it, run dockerd with "--storage-driver btrfs" ' +
    'on a btrfs data root, or overlay2 on xfs mounted with pquota.'
  );
}
