import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isConfigError } from '../../errors.ts';
import { normalizeImageName } from './image-name.ts';

describe('normalizeImageName', () => {
  it('adds :latest when there is no tag or digest', () => {
    assert.equal(normalizeImageName('sandgym/base'), 'sandgym/base:latest');
    assert.equal(normalizeImageName('sandgym/base:latest'), 'sandgym/base:latest');
    assert.equal(normalizeImageName('python'), 'python:latest');
  });

  it('keeps tags, registries with ports and digests', () => {
    assert.equal(
      normalizeImageName('swebench/sweb.eval.x86_64.django_1776_django-11099:v1'),
      'swebench/sweb.eval.x86_64.django_1776_django-11099:v1',
    );
    assert.equal(normalizeImageName('localhost:5000/a/b'), 'localhost:5000/a/b:latest');
    assert.equal(normalizeImageName('registry.example.com/a:1.2'), 'registry.example.com/a:1.2');
    const digest = `sha256:${'a'.repeat(64)}`;
    assert.equal(normalizeImageName(`a/b@${digest}`), `a/b@${digest}`);
  });

  it('rejects what Docker would reject, with a ConfigError naming the reference', () => {
    for (const bad of ['', 'Upper/case', 'a//b', 'a/b:', 'a/b:bad tag', '-a', 'a/../b', 'a@sha256:12']) {
      assert.throws(
        () => normalizeImageName(bad),
        (e: unknown) => isConfigError(e) && e.message.includes(`"${bad}"`),
        bad,
      );
    }
  });
});
