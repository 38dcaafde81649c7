/**
 * The RL math of sandgym: pure functions over plain `number[]` (ragged `number[][]` batches, axis
 * suffixes `_B` sequences, `_T` tokens, `_G` group). Variants are chosen by their verl/Tinker config
 * names; an unknown name throws a ConfigError listing the valid ones.
 *
 * Pipeline: `assembleTrajectory` → `placeOutcomeReward` (or `toVerlBatch` for verl's layout) →
 * [`estimateKl` + `applyKlPenalty`] → `computeAdvantages` → [`rolloutCorrectionWeights`] →
 * `computePolicyLoss` [+ `klLoss`] → `aggregateLoss`; the gradient of the aggregate with respect to
 * logp_t is `weight_B_T[b][t] · dLossDLogprob_B_T[b][t]`.
 */
export {
  type AdvantageConfig,
  type AdvantageEstimator,
  type AdvantageInput,
  type AdvantageResult,
  advantageEstimatorNames,
  computeAdvantages,
  registerAdvantageEstimator,
} from './advantage-estimators.ts';
export { type AssembledTrajectory, assembleTrajectory, type SampledTurn } from './assemble-trajectory.ts';
export {
  type GroupAdvantageOptions,
  grpoGroupAdvantages,
  meanBaselineGroupAdvantages,
  reinforceGroupAdvantages,
  rlooGroupAdvantages,
} from './group-advantages.ts';
export {
  createKlController,
  type KlControllerConfig,
  type KlControllerState,
  updateKlController,
} from './kl-controller.ts';
export { estimateKl, getKlEstimator, type KlBatch, type KlToken, klEstimatorNames } from './kl-estimators.ts';
export { applyKlPenalty, type KlLossResult, type KlPenaltyResult, klLoss } from './kl-penalty.ts';
export {
  type AggregatedLoss,
  aggregateLoss,
  type LossAggregationOptions,
  lossAggregationModes,
} from './loss-aggregation.ts';
export { maskedWhiten } from './masked-whiten.ts';
export { type GroupId, outcomeScores } from './outcome-advantages.ts';
export { placeOutcomeReward } from './place-outcome-reward.ts';
export {
  policyLossConfigFromTinker,
  policyLossConfigFromVerl,
  type TinkerLossFnConfig,
  type VerlClipConfig,
} from './policy-loss-config.ts';
export type {
  ClipBounds,
  PolicyLossConfig,
  PolicyLossInput,
  PolicyLossMetrics,
  PolicyLossResult,
} from './policy-loss-types.ts';
export { computePolicyLoss, policyLossNames, verlPolicyLossAliases } from './policy-losses.ts';
export {
  type RolloutCorrection,
  type RolloutCorrectionInput,
  type RolloutCorrectionMetrics,
  type RolloutCorrectionOptions,
  rolloutCorrectionLevels,
  rolloutCorrectionWeights,
} from './rollout-correction.ts';
export {
  toVerlBatch,
  type VerlBatch,
  type VerlBatchOptions,
  type VerlSample,
  type VerlTensors,
} from './to-verl-batch.ts';
