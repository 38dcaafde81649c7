import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isConfigError } from '../../errors.ts';
import { e2bOptionsFromConfig, parseE2BOptions } from './e2b-options.ts';

describe('e2b provider options', () => {
  it('takes any key format (AGS keys are not e2b_…) and derives the API URL from the domain', () => {
    const o = parseE2BOptions({}, { E2B_API_KEY: 'ark_abc', E2B_DOMAIN: 'ap-guangzhou.tencentags.com' });
    assert.equal(o.apiKey, 'ark_abc');
    assert.equal(o.domain, 'ap-guangzhou.tencentags.com');
    assert.equal(o.apiUrl, 'https://api.ap-guangzhou.tencentags.com');
    assert.equal(o.sandboxUrl, undefined);
  });

  it('prefers options over the environment, and defaults to e2b.app', () => {
    const o = parseE2BOptions(
      { apiKey: 'k', apiUrl: 'http://127.0.0.1:3000', sandboxUrl: 'http://127.0.0.1:3000' },
      { E2B_API_KEY: 'env', E2B_API_URL: 'http://elsewhere' },
    );
    assert.equal(o.apiKey, 'k');
    assert.equal(o.apiUrl, 'http://127.0.0.1:3000');
    assert.equal(o.domain, 'e2b.app');
    assert.equal(o.requestTimeoutMs, 60_000);
  });

  it('refuses a missing key, unknown options and bad values with what to do', () => {
    assert.throws(
      () => parseE2BOptions({}, {}),
      (e: unknown) => isConfigError(e) && /E2B_API_KEY/.test(e.message),
    );
    assert.throws(
      () => parseE2BOptions({ apiKey: 'k', domian: 'x' }, {}),
      (e: unknown) => isConfigError(e) && /valid options: apiKey, domain/.test(e.message),
    );
    assert.throws(
      () => parseE2BOptions({ apiKey: 'k', streamIdleTimeoutMs: 10 }, {}),
      (e: unknown) => isConfigError(e) && /streamIdleTimeoutMs/.test(e.message),
    );
  });

  it('maps the sandbox.e2b config section, leaving unset keys to the E2B_* variables', () => {
    const unset = { domain: 'e2b.app', api_url: null, sandbox_url: null, template_map: null };
    assert.deepEqual(e2bOptionsFromConfig(unset), {});
    const options = e2bOptionsFromConfig({
      domain: 'ap-beijing.tencentags.com',
      api_url: null,
      sandbox_url: 'http://127.0.0.1:3000',
      template_map: 'tool_mapping.json',
    });
    assert.deepEqual(options, {
      domain: 'ap-beijing.tencentags.com',
      sandboxUrl: 'http://127.0.0.1:3000',
      templateMap: 'tool_mapping.json',
    });
    assert.equal(
      parseE2BOptions(options, { E2B_API_KEY: 'k' }).apiUrl,
      'https://api.ap-beijing.tencentags.com',
    );
  });
});
