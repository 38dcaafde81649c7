import { ConfigError } from '../errors.ts';
import { gaeAdvantages, type TokenAdvantages } from './gae.ts';
import {
  type GroupAdvantageOptions,
  grpoGroupAdvantages,
  meanBaselineGroupAdvantages,
  reinforceGroupAdvantages,
  rlooGroupAdvantages,
} from './group-advantages.ts';
import { maskedWhiten } from './masked-whiten.ts';
import { applyPerGroup, broadcastOverTokens, type GroupId, outcomeScores } from './outcome-advantages.ts';
import { lookupByName } from './registry.ts';
import { reinforcePlusPlusAdvantages } from './reinforce-plus-plus.ts';
import { assertBinaryMask, assertParam, assertSameShape, type Ragged } from './shapes.ts';

/** One batch of ragged response sequences, as every estimator takes it (verl's argument names). */
export interface AdvantageInput {
  /** r_{b,t}: the outcome reward on one token, any KL penalty on every token. */
  tokenLevelRewards_B_T: Ragged;
  /** 1 = model token, 0 = observation/tool token. */
  responseMask_B_T: Ragged;
  /** The task of each sequence; required by grpo, rloo and reinforce_plus_plus_baseline. */
  groupIds_B?: readonly GroupId[];
  /** Critic values V(s_t); required by gae. */
  values_B_T?: Ragged;
}

export interface AdvantageConfig extends GroupAdvantageOptions {
  /** Discount γ of gae and reinforce_plus_plus. Default 1.0 (verl `algorithm.gamma`). */
  gamma?: number;
  /** GAE λ. Default 1.0 (verl `algorithm.lam`). */
  lam?: number;
}

/** Outcome estimators return their advantages as returns too, as verl does. */
export type AdvantageResult = TokenAdvantages;

type Estimator = AdvantageEstimator;

function requireGroupIds(name: string, input: AdvantageInput): readonly GroupId[] {
  if (!input.groupIds_B) {
    throw new ConfigError(
      `advantage estimator "${name}": groupIds_B is required; pass each sequence's task id`,
    );
  }
  return input.groupIds_B;
}

function outcome(
  name: string,
  perGroup: (scores_G: readonly number[], c: AdvantageConfig) => number[],
): Estimator {
  return (input, config) => {
    const scores_B = outcomeScores(input.tokenLevelRewards_B_T);
    const advantages_B = applyPerGroup(scores_B, requireGroupIds(name, input), (s) => perGroup(s, config));
    const advantages_B_T = broadcastOverTokens(advantages_B, input.responseMask_B_T);
    return { advantages_B_T, returns_B_T: advantages_B_T };
  };
}

const estimators: Record<string, Estimator> = {
  gae: (input, config) => {
    if (!input.values_B_T) {
      throw new ConfigError('advantage estimator "gae": values_B_T is required; pass the critic values');
    }
    assertSameShape(
      'advantage estimator "gae"',
      'responseMask_B_T',
      input.responseMask_B_T,
      'values_B_T',
      input.values_B_T,
    );
    return gaeAdvantages({ ...input, values_B_T: input.values_B_T }, config.gamma ?? 1, config.lam ?? 1);
  },
  grpo: outcome('grpo', grpoGroupAdvantages),
  rloo: outcome('rloo', rlooGroupAdvantages),
  reinforce: (input) => {
    const advantages_B_T = broadcastOverTokens(
      reinforceGroupAdvantages(outcomeScores(input.tokenLevelRewards_B_T)),
      input.responseMask_B_T,
    );
    return { advantages_B_T, returns_B_T: advantages_B_T };
  },
  reinforce_plus_plus: (input, config) =>
    reinforcePlusPlusAdvantages(input.tokenLevelRewards_B_T, input.responseMask_B_T, config.gamma ?? 1),
  reinforce_plus_plus_baseline: (input, config) => {
    const centred = outcome('reinforce_plus_plus_baseline', meanBaselineGroupAdvantages)(input, config);
    const mask_B_T = input.responseMask_B_T;
    const whitened_B_T = maskedWhiten(centred.advantages_B_T, mask_B_T);
    const advantages_B_T = whitened_B_T.map((row, b) => row.map((a, t) => a * mask_B_T[b]![t]!));
    return { advantages_B_T, returns_B_T: advantages_B_T };
  },
};

const names = Object.keys(estimators);

/** The registered names, valid values of `algorithm.adv_estimator` (plugins add to them). */
export const advantageEstimatorNames: readonly string[] = names;

/** A user's estimator: per-token advantages (× responseMask) of a batch, as the built-in ones. */
export type AdvantageEstimator = (input: AdvantageInput, config: AdvantageConfig) => AdvantageResult;

/**
 * Adds an estimator under a new name, as verl's `register_adv_est` does: a config plugin
 * (`plugins: [my-estimator.ts]`) calls it before the config is validated, so the name is then a valid
 * `algorithm.adv_estimator`. A name already taken is refused: a plugin must not silently replace grpo.
 */
export function registerAdvantageEstimator(name: string, estimator: AdvantageEstimator): void {
  if (!/^[a-z][a-z0-9_]*$/.test(name)) {
    throw new ConfigError(`advantage estimator "${name}": names are lower_snake_case`);
  }
  if (Object.hasOwn(estimators, name)) {
    throw new ConfigError(`advantage estimator "${name}" is already registered`);
  }
  estimators[name] = estimator;
  names.push(name);
}

/**
 * Per-token advantages of a batch by estimator name (verl's `adv_estimator`): `gae`, `grpo` (Dr.GRPO with
 * `normByStd: false`), `rloo`, `reinforce`, `reinforce_plus_plus`, `reinforce_plus_plus_baseline`.
 * Every result is × responseMask. An unknown name throws a ConfigError listing the valid ones.
 */
export function computeAdvantages(
  name: string,
  input: AdvantageInput,
  config: AdvantageConfig = {},
): AdvantageResult {
  const estimator = lookupByName('advantage estimator', estimators, name);
  const what = `advantage estimator "${name}"`;
  assertSameShape(
    what,
    'responseMask_B_T',
    input.responseMask_B_T,
    'tokenLevelRewards_B_T',
    input.tokenLevelRewards_B_T,
  );
  assertBinaryMask(what, 'responseMask_B_T', input.responseMask_B_T);
  const gamma = config.gamma ?? 1;
  const lam = config.lam ?? 1;
  assertParam(what, 'gamma', gamma, gamma >= 0 && gamma <= 1, 'in [0, 1]');
  assertParam(what, 'lam', lam, lam >= 0 && lam <= 1, 'in [0, 1]');
  const epsilon = config.epsilon ?? 1e-6;
  assertParam(what, 'epsilon', epsilon, epsilon >= 0, '≥ 0');
  const singleton = config.singletonGroup ?? 'zero';
  if (singleton !== 'zero' && singleton !== 'raw') {
    throw new ConfigError(`${what}: singletonGroup is "${singleton}"; use "zero" or "raw"`);
  }
  return estimator(input, config);
}
