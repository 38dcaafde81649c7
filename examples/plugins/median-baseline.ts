/**
 * An example config plugin: `plugins: [examples/plugins/median-baseline.ts]` then
 * `algorithm.adv_estimator=median_baseline`. Each sequence's advantage is its outcome score minus the
 * median score of its task's group: a baseline that one lucky or broken sample cannot drag, unlike
 * GRPO's mean. A plugin exports `register(sandgym)`; the types are imported only for the editor.
 */
import type { AdvantageInput, PluginApi } from '../../src/config/index.ts';

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function register(sandgym: PluginApi): void {
  sandgym.registerAdvantageEstimator('median_baseline', (input: AdvantageInput) => {
    // The outcome reward sits on one token: a sequence's score is the sum of its token rewards.
    const scores = input.tokenLevelRewards_B_T.map((row) => row.reduce((a, b) => a + b, 0));
    const groups = input.groupIds_B ?? scores.map(() => 0);
    const byGroup = new Map<unknown, number[]>();
    for (const [b, s] of scores.entries()) byGroup.set(groups[b], [...(byGroup.get(groups[b]) ?? []), s]);
    const advantages_B_T = input.responseMask_B_T.map((mask, b) => {
      const a = scores[b]! - median(byGroup.get(groups[b])!);
      return mask.map((m) => a * m);
    });
    return { advantages_B_T, returns_B_T: advantages_B_T };
  });
}
