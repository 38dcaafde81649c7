import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { isConfigError } from '../errors.ts';
import { computeAdvantages } from '../rl/index.ts';
import { loadConfig, loadConfigWithPlugins } from './index.ts';

const EXAMPLE = new URL('../../examples/plugins/median-baseline.ts', import.meta.url).pathname;

describe('config plugins', () => {
  it('add an advantage estimator that the config may then name, and training then uses', async () => {
    assert.throws(
      () => loadConfig([], ['algorithm.adv_estimator=median_baseline']),
      /unknown value "median_baseline"/,
      'not a name before the plugin loads',
    );
    const config = await loadConfigWithPlugins(
      [],
      [`plugins=[${EXAMPLE}]`, 'algorithm.adv_estimator=median_baseline'],
    );
    assert.equal(config.algorithm.adv_estimator, 'median_baseline');
    const { advantages_B_T } = computeAdvantages(config.algorithm.adv_estimator, {
      tokenLevelRewards_B_T: [
        [0, 1],
        [0, 0],
        [0, 0],
        [0, 1],
      ],
      responseMask_B_T: [
        [1, 1],
        [1, 1],
        [1, 1],
        [1, 1],
      ],
      groupIds_B: ['a', 'a', 'a', 'b'],
    });
    assert.deepEqual(advantages_B_T, [
      [1, 1],
      [0, 0],
      [0, 0],
      [0, 0],
    ]);
    // Loading it again (a resumed run's config.yaml names it too) is a no-op, not a duplicate.
    await loadConfigWithPlugins([], [`plugins=[${EXAMPLE}]`]);
  });

  it('fail at load, naming the plugin, when it cannot load or register', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sg-plugin-'));
    const none = join(dir, 'none.mjs');
    writeFileSync(none, 'export const x = 1;\n');
    const clash = join(dir, 'clash.mjs');
    writeFileSync(
      clash,
      "export function register(s) { s.registerAdvantageEstimator('grpo', () => ({})); }\n",
    );
    const cases: [string, RegExp][] = [
      [join(dir, 'missing.mjs'), /^plugins: .*missing\.mjs cannot be loaded/],
      [none, /^plugins: .*none\.mjs exports no register\(sandgym\) function$/],
      [
        clash,
        /^plugins: .*clash\.mjs: register\(\) failed: advantage estimator "grpo" is already registered$/,
      ],
    ];
    for (const [path, message] of cases) {
      await assert.rejects(
        loadConfigWithPlugins([], [`plugins=[${path}]`]),
        (e: unknown) => isConfigError(e) && message.test(e.message),
      );
    }
  });
});
