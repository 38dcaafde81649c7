import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { blockedBy, R2E_GYM_BLOCKLIST } from './command-blocklist.ts';

describe('blockedBy', () => {
  it("refuses R2E-Gym's commands wherever they start a simple command", () => {
    for (const cmd of [
      'git log --all',
      'cd /testbed && git log --all --oneline',
      'ls; git show HEAD~1',
      'echo $(git rev-list --all)',
      'FOO=1 git reflog',
      '/usr/bin/git log',
      'sudo git log',
      'ipython',
      'nohup python server.py &',
      'true | jupyter notebook',
    ]) {
      assert.ok(blockedBy(cmd, R2E_GYM_BLOCKLIST), cmd);
    }
  });

  it('lets through commands that only mention a blocked word', () => {
    for (const cmd of [
      'echo git',
      'python -c "print(1)"',
      'grep -r gitignore .',
      'pip install gitpython',
      'ls .git',
    ]) {
      assert.equal(blockedBy(cmd, R2E_GYM_BLOCKLIST), undefined, cmd);
    }
  });

  it('matches multi-word entries on their leading words only', () => {
    const list = ['git log', 'git reflog'];
    assert.equal(blockedBy('git log -p', list), 'git log');
    assert.equal(blockedBy('git diff', list), undefined);
    assert.equal(blockedBy('anything', []), undefined);
  });
});
