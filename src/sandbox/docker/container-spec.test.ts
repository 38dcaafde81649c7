import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { DEFAULT_LIMITS } from '../types.ts';
import { containerSpec, INIT_SCRIPT } from './container-spec.ts';

const base = {
  image: 'sandgym/base:latest',
  labels: { 'sandgym.run': 'r' },
  limits: { ...DEFAULT_LIMITS, memoryBytes: 256 * 1024 * 1024, pids: 64, cpus: 0.5 },
  ttlMs: 90_500,
  network: false,
};

describe('containerSpec', () => {
  it('closes the sandbox by default and turns limits into HostConfig', () => {
    const spec = containerSpec({ ...base, env: { A: '1' }, workdir: '/work', storageSizeBytes: 123 });
    assert.equal(spec.NetworkDisabled, true);
    assert.equal(spec.HostConfig?.NetworkMode, 'none');
    assert.equal(spec.HostConfig?.Memory, 256 * 1024 * 1024);
    assert.equal(spec.HostConfig?.MemorySwap, 256 * 1024 * 1024, 'no swap beyond the memory limit');
    assert.equal(spec.HostConfig?.PidsLimit, 64);
    assert.equal(spec.HostConfig?.NanoCpus, 500_000_000);
    assert.deepEqual(spec.HostConfig?.StorageOpt, { size: '123' });
    assert.deepEqual(spec.Env, ['A=1']);
    assert.equal(spec.WorkingDir, '/work');
    assert.deepEqual(spec.Labels, { 'sandgym.run': 'r' });
  });

  it('runs the init with the TTL in whole seconds, rounded up', () => {
    const spec = containerSpec(base);
    assert.deepEqual(spec.Entrypoint, ['/bin/sh', '-c', INIT_SCRIPT, 'sandgym-init']);
    assert.deepEqual(spec.Cmd, ['91']);
    assert.equal(spec.HostConfig?.StorageOpt, undefined, 'no disk quota unless the driver supports it');
    assert.equal(spec.HostConfig?.Ulimits, undefined);
  });

  it('caps single files when the disk quota is unavailable', () => {
    const spec = containerSpec({ ...base, fileSizeLimitBytes: 4096 });
    assert.deepEqual(spec.HostConfig?.Ulimits, [{ Name: 'fsize', Soft: 4096, Hard: 4096 }]);
  });

  it('opens the network only when asked', () => {
    assert.equal(containerSpec({ ...base, network: true }).HostConfig?.NetworkMode, 'bridge');
  });

  it('refuses a relative workdir and bad env names', () => {
    assert.throws(
      () => containerSpec({ ...base, workdir: 'work' }),
      /workdir "work" must be an absolute path/,
    );
    assert.throws(() => containerSpec({ ...base, env: { 'A=B': 'x' } }), /environment variable name "A=B"/);
  });
});

describe('INIT_SCRIPT', () => {
  it('is valid sh, and exits by itself once its TTL has passed', () => {
    execFileSync('/bin/sh', ['-n', '-c', INIT_SCRIPT]);
    const started = Date.now();
    execFileSync('/bin/sh', ['-c', INIT_SCRIPT, 'sandgym-init', '1'], { timeout: 10_000 });
    assert.ok(Date.now() - started < 8000);
  });

  it('fails instead of spinning when sleep is missing', () => {
    assert.throws(
      () =>
        execFileSync('/bin/sh', ['-c', INIT_SCRIPT, 'sandgym-init', '60'], {
          env: { PATH: '/nonexistent' },
          timeout: 5000,
        }),
      (e: unknown) => (e as { status?: number }).status === 127,
    );
  });
});
