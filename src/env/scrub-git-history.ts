import { SandboxError } from '../errors.ts';
import type { Sandbox } from '../sandbox/index.ts';

/**
 * Leaves a repository's git history ending at HEAD, so no git command can reach the commits that fixed
 * the bug (SWE-bench/SWE-bench#465: `git log --all` showed agents the future through tags and remotes).
 *
 * Deleted: remotes and their refs, every ref but the checked-out branch (tags, other branches, stash,
 * notes, replace refs), reflogs, the stray `ORIG_HEAD`-style files, and cached commit-graphs. Then, only
 * when the object store holds more than HEAD reaches (a clone reset to an old commit keeps the whole
 * future in its pack), the store is repacked and pruned down to what HEAD and the index reach. A
 * repository that has nothing to scrub costs two quick git calls.
 *
 * Prints `scrubbed` when it repacked, `clean` when nothing needed repacking, `no-repo` without a repo.
 */
const SCRUB_SCRIPT = `
set -eu
cd "$1"
git rev-parse --git-dir >/dev/null 2>&1 || { echo no-repo; exit 0; }
gitdir=$(git rev-parse --git-dir)
for r in $(git remote); do git remote remove "$r"; done
branch=$(git symbolic-ref -q HEAD || true)
git for-each-ref --format='delete %(refname)' | grep -vxF "delete $branch" | git update-ref --stdin
rm -f "$gitdir/ORIG_HEAD" "$gitdir/FETCH_HEAD" "$gitdir/MERGE_HEAD" "$gitdir/CHERRY_PICK_HEAD" \\
  "$gitdir/REVERT_HEAD" "$gitdir/objects/info/commit-graph" "$gitdir/objects/pack/multi-pack-index"
rm -rf "$gitdir/objects/info/commit-graphs" "$gitdir/logs" "$gitdir/refs/original"
stored=$(git count-objects -v | awk '/^(count|in-pack):/ { n += $2 } END { print n + 0 }')
reachable=$(git rev-list --objects --all --indexed-objects | wc -l)
if [ "$stored" -le "$reachable" ]; then echo clean; exit 0; fi
rm -f "$gitdir"/objects/pack/*.keep
git -c pack.writeBitmaps=false repack -a -d -q
git prune --expire=now
echo scrubbed
`;

export type ScrubOutcome = 'scrubbed' | 'clean' | 'no-repo';

/** Scrubs the repository at `repoDir`; a failure is the image's fault and throws a `SandboxError`. */
export async function scrubGitHistory(
  sandbox: Sandbox,
  repoDir: string,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<ScrubOutcome> {
  const r = await sandbox.exec(['sh', '-c', SCRUB_SCRIPT, 'sh', repoDir], {
    timeoutMs: options.timeoutMs,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const outcome = r.stdout.trim().split('\n').pop();
  if (r.exitCode !== 0 || (outcome !== 'scrubbed' && outcome !== 'clean' && outcome !== 'no-repo')) {
    const why = r.timedOut
      ? `timed out after ${options.timeoutMs} ms`
      : `exit ${r.exitCode}: ${r.stderr.trim()}`;
    throw new SandboxError(sandbox.id, `scrubbing the git history of ${repoDir} failed (${why})`);
  }
  return outcome;
}
