import type { PolicyLossConfig, ResolvedPolicyLossConfig } from './policy-loss-types.ts';
import { assertParam } from './shapes.ts';

/** verl's actor keys (`actor_rollout_ref.actor.*`): clip ranges as distances from 1. */
export interface VerlClipConfig {
  /** Symmetric ε; default 0.2. */
  clip_ratio?: number;
  /** ε_low, default clip_ratio: the ratio is floored at 1 − ε_low. */
  clip_ratio_low?: number | null;
  /** ε_high, default clip_ratio: the ratio is capped at 1 + ε_high (DAPO uses 0.28). */
  clip_ratio_high?: number | null;
  /** Dual-clip c, default 3.0. */
  clip_ratio_c?: number;
}

/** Tinker's `loss_fn_config` keys: clip thresholds as ratios. */
export interface TinkerLossFnConfig {
  /** Default 0.8 (SkyRL). */
  clip_low_threshold?: number;
  /** Default 1.2 (SkyRL). */
  clip_high_threshold?: number;
}

/** verl parametrization → thresholds [1 − ε_low, 1 + ε_high] with verl's dual clip. */
export function policyLossConfigFromVerl(actor: VerlClipConfig = {}): PolicyLossConfig {
  const clipRatio = actor.clip_ratio ?? 0.2;
  return {
    clip: { low: 1 - (actor.clip_ratio_low ?? clipRatio), high: 1 + (actor.clip_ratio_high ?? clipRatio) },
    clipRatioC: actor.clip_ratio_c ?? 3.0,
  };
}

/** Tinker/SkyRL parametrization → the same thresholds, and no dual clip (Tinker's ppo has none). */
export function policyLossConfigFromTinker(lossFnConfig: TinkerLossFnConfig = {}): PolicyLossConfig {
  return {
    clip: { low: lossFnConfig.clip_low_threshold ?? 0.8, high: lossFnConfig.clip_high_threshold ?? 1.2 },
    clipRatioC: null,
  };
}

/** Defaults filled in and checked: 0 ≤ low ≤ 1 ≤ high, and c > 1 as verl asserts. */
export function resolvePolicyLossConfig(what: string, config: PolicyLossConfig): ResolvedPolicyLossConfig {
  const clip = config.clip ?? { low: 0.8, high: 1.2 };
  const clipRatioC = config.clipRatioC === undefined ? 3.0 : config.clipRatioC;
  assertParam(
    what,
    'clip.low',
    clip.low,
    clip.low >= 0 && clip.low <= 1,
    'in [0, 1] (a ratio threshold, e.g. 0.8)',
  );
  assertParam(what, 'clip.high', clip.high, clip.high >= 1, '≥ 1 (a ratio threshold, e.g. 1.2)');
  if (clipRatioC !== null) {
    assertParam(
      what,
      'clipRatioC',
      clipRatioC,
      clipRatioC > 1,
      '> 1 for dual-clip PPO, or null to turn it off',
    );
  }
  return { clip, clipRatioC };
}
