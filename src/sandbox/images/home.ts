import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Where sandgym keeps its state: `$SANDGYM_HOME`, else `~/.cache/sandgym`.
 *
 * ```
 * <home>/layers/<key>/rootfs      read-only filesystem layers, named by content key
 * <home>/layers/<key>/layer.json  what made the layer and its size
 * <home>/layers/.tmp-<run>-<rand> a layer being built (renamed into place when complete)
 * <home>/images/<name>.json       image index: name → ordered layers, env, workdir, recipe key
 * <home>/builds/<provider>/…      recipe keys of images made by buildImage
 * <home>/sandboxes/<id>/          one local sandbox: meta.json and its mount points
 * ```
 */
export function resolveHome(home?: string): string {
  return home ?? process.env.SANDGYM_HOME ?? join(homedir(), '.cache', 'sandgym');
}
