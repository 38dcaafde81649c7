import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tinkerOptionsFromConfig } from './tinker-engine-options.ts';

const section = {
  base_url: 'http://127.0.0.1:8000',
  api_key: null,
  base_model: 'reference-tiny',
  lora_rank: 32,
  tokenizer: null,
  max_context_tokens: null,
  max_concurrent_samples: 400,
};

test('engine.tinker and the environment: TINKER_BASE_URL overrides the URL, the config’s key wins over TINKER_API_KEY', () => {
  assert.deepEqual(withoutFunctions(tinkerOptionsFromConfig(section, {})), {
    baseUrl: 'http://127.0.0.1:8000',
    apiKey: undefined,
    baseModel: 'reference-tiny',
    loraRank: 32,
    maxConcurrentSamples: 400,
  });
  const env = { TINKER_BASE_URL: 'https://tinker.example', TINKER_API_KEY: 'tml-env' };
  assert.deepEqual(withoutFunctions(tinkerOptionsFromConfig(section, env)), {
    baseUrl: 'https://tinker.example',
    apiKey: 'tml-env',
    baseModel: 'reference-tiny',
    loraRank: 32,
    maxConcurrentSamples: 400,
  });
  assert.equal(tinkerOptionsFromConfig({ ...section, api_key: 'tml-config' }, env).apiKey, 'tml-config');
  const skyrl = { ...section, tokenizer: 'Qwen/Qwen3-8B', max_context_tokens: 32_768 };
  assert.deepEqual(withoutFunctions(tinkerOptionsFromConfig(skyrl, {})), {
    baseUrl: 'http://127.0.0.1:8000',
    apiKey: undefined,
    baseModel: 'reference-tiny',
    loraRank: 32,
    maxConcurrentSamples: 400,
    tokenizer: 'Qwen/Qwen3-8B',
    maxContextTokens: 32_768,
  });
});

function withoutFunctions<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => typeof v !== 'function')) as Partial<T>;
}
