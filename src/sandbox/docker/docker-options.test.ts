import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isConfigError, isSandboxError } from '../../errors.ts';
import { diskQuotaSupport, isDiskQuotaRefusal } from './disk-quota.ts';
import { parseDockerOptions } from './docker-options.ts';
import { createDockerProvider } from './index.ts';
import { remedy } from './pull-image.ts';
import { sandboxPath } from './sandbox-path.ts';

describe('docker provider options', () => {
  it('fills defaults and refuses unknown keys, listing the valid ones', () => {
    const o = parseDockerOptions({ socketPath: '/run/docker.sock', dockerConfigPath: '/x/config.json' });
    assert.equal(o.socketPath, '/run/docker.sock');
    assert.equal(o.pullTimeoutMs, 30 * 60_000);
    assert.throws(
      () => parseDockerOptions({ socketpath: '/x' }),
      (e: unknown) =>
        isConfigError(e) && /socketpath/.test(e.message) && /valid options: socketPath, host/.test(e.message),
    );
    assert.throws(() => parseDockerOptions({ onWarning: 'loud' }), /onWarning: must be a function/);
  });

  it('fails at start-up, saying what to run, when no engine answers', async () => {
    await assert.rejects(
      createDockerProvider({ options: { socketPath: '/nonexistent/docker.sock' } }),
      (e: unknown) =>
        isSandboxError(e) && /cannot reach the Docker engine.*bash scripts\/setup.sh/.test(e.message),
    );
  });
});

describe('disk quota support', () => {
  it('knows btrfs and zfs can, overlay2 on xfs may, overlay2 on ext4 cannot', () => {
    assert.equal(diskQuotaSupport({ Driver: 'btrfs' }), 'yes');
    assert.equal(diskQuotaSupport({ Driver: 'zfs' }), 'yes');
    assert.equal(
      diskQuotaSupport({ Driver: 'overlay2', DriverStatus: [['Backing Filesystem', 'xfs']] }),
      'try',
    );
    assert.equal(
      diskQuotaSupport({ Driver: 'overlay2', DriverStatus: [['Backing Filesystem', 'extfs']] }),
      'no',
    );
  });

  it("recognises the engine's refusal, not a quota that is merely too small", () => {
    const refusal = {
      json: { message: "--storage-opt is supported only for overlay over xfs with 'pquota' mount option" },
    };
    assert.equal(isDiskQuotaRefusal(refusal), true);
    assert.equal(
      isDiskQuotaRefusal({ json: { message: 'Failed to limit qgroup for 1: disk quota exceeded' } }),
      false,
    );
  });
});

describe('sandboxPath and remedies', () => {
  it('normalizes absolute paths and refuses relative ones, naming the sandbox', () => {
    assert.equal(sandboxPath('s1', '/tmp/../etc//x/'), '/etc/x');
    assert.equal(sandboxPath('s1', '/'), '/');
    assert.throws(
      () => sandboxPath('s1', '../../etc/passwd'),
      /sandbox s1: path "..\/..\/etc\/passwd" must be absolute/,
    );
    assert.throws(() => sandboxPath('s1', '/a\0b'), /must be absolute/);
  });

  it('tells how to get an absent image', () => {
    assert.equal(remedy('sandgym/base:latest'), 'build it with "sandgym images build base"');
    assert.match(remedy('swebench/sweb.eval.x86_64.django:latest'), /docker pull swebench\/sweb.eval/);
  });
});
