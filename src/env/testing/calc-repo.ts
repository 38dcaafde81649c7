import type { SandboxProvider } from '../../sandbox/index.ts';
import { BASE_IMAGE, sh } from './provider-sandboxes.ts';

/** A task image built for the tests: the repository, its base commit and the future the image leaks. */
export interface CalcRepoImage {
  image: string;
  baseCommit: string;
  /** The commit that fixes the bug: in the image's history, out of the agent's reach after preparing. */
  futureCommit: string;
  /** The fixed calc.py's blob, which must vanish with the future commit. */
  futureBlob: string;
  testPatch: string;
  goldPatch: string;
}

const CALC = `def double(x):
    return x + 1


def triple(x):
    return x * 3
`;

const TESTS = `import calc


def test_triple():
    assert calc.triple(2) == 6
`;

/**
 * An image made the way careless task images are: a clone whose branch was reset to the base commit,
 * keeping the fix in a tag, a branch, a remote-tracking ref, a stash, the reflog and the packfile, and
 * with the future's test files left in the working tree. Snapshotted under a fixed name, so reruns
 * replace it instead of piling up.
 */
export async function buildCalcRepoImage(
  provider: SandboxProvider,
  image = 'sandgym-test/env-calc:fixture',
): Promise<CalcRepoImage> {
  const s = await provider.create({ image: BASE_IMAGE });
  try {
    await sh(s, 'mkdir -p /testbed', '/');
    const out = await sh(
      s,
      `export GIT_AUTHOR_DATE=2020-01-01T00:00:00Z GIT_COMMITTER_DATE=2020-01-01T00:00:00Z
git init -q -b main .
git config user.name fixture && git config user.email fixture@example.com
mkdir tests
cat > calc.py <<'PY'
${CALC}PY
cat > tests/test_calc.py <<'PY'
${TESTS}PY
touch conftest.py
git add -A && git commit -qm "calc: double and triple"
base=$(git rev-parse HEAD)
sed -i 's/return x + 1/return x * 2/' calc.py
printf '\\n\\ndef test_double():\\n    assert calc.double(3) == 6\\n' >> tests/test_calc.py
printf 'import calc\\n\\n\\ndef test_double_zero():\\n    assert calc.double(0) == 0\\n' > tests/test_new.py
git add -A && git commit -qm "Fix double"
future=$(git rev-parse HEAD)
blob=$(git rev-parse HEAD:calc.py)
git tag v1.0 && git branch feature && git update-ref refs/remotes/origin/main HEAD
git remote add origin https://example.com/calc.git
echo "# scratch" >> calc.py && git stash -q
git diff "$base" "$future" -- tests > /tmp/test.patch
git diff "$base" "$future" -- calc.py > /tmp/gold.patch
git reset -q --hard "$base"
git repack -a -d -q
git show "$future:tests/test_calc.py" > tests/test_calc.py
git show "$future:tests/test_new.py" > tests/test_new.py
echo "$base $future $blob"`,
    );
    const [baseCommit, futureCommit, futureBlob] = out.trim().split(' ') as [string, string, string];
    const testPatch = (await s.readFile('/tmp/test.patch')).toString();
    const goldPatch = (await s.readFile('/tmp/gold.patch')).toString();
    await sh(s, 'rm /tmp/test.patch /tmp/gold.patch');
    await s.snapshot(image);
    return { image, baseCommit, futureCommit, futureBlob, testPatch, goldPatch };
  } finally {
    await s.close();
  }
}
