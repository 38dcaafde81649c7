import { ConfigError } from '../errors.ts';
import { cispoLoss } from './cispo-loss.ts';
import { crossEntropyLoss } from './cross-entropy-loss.ts';
import { importanceSamplingLoss } from './importance-sampling-loss.ts';
import { resolvePolicyLossConfig } from './policy-loss-config.ts';
import type {
  PolicyLossConfig,
  PolicyLossInput,
  PolicyLossKernel,
  PolicyLossResult,
} from './policy-loss-types.ts';
import { ppoClipLoss } from './ppo-clip-loss.ts';
import { lookupByName } from './registry.ts';
import { assertBinaryMask, assertSameShape, type Ragged } from './shapes.ts';

/** Tinker's loss_fn names; `ppo` is also verl's `vanilla`. */
const kernels: Record<string, PolicyLossKernel> = {
  ppo: ppoClipLoss,
  importance_sampling: importanceSamplingLoss,
  cispo: cispoLoss,
  cross_entropy: crossEntropyLoss,
};

/** verl's `policy_loss.loss_mode` names for the kernels above: its `vanilla` is the clipped `ppo`. */
export const verlPolicyLossAliases = { vanilla: 'ppo' } as const;

/** Every name `computePolicyLoss` takes: Tinker's, then verl's aliases. */
export const policyLossNames: readonly string[] = [
  ...Object.keys(kernels),
  ...Object.keys(verlPolicyLossAliases),
];

function checkInputs(what: string, kernel: PolicyLossKernel, input: PolicyLossInput): void {
  assertSameShape(what, 'logprobs_B_T', input.logprobs_B_T, 'mask_B_T', input.mask_B_T);
  assertBinaryMask(what, 'mask_B_T', input.mask_B_T);
  for (const key of kernel.requires) {
    const value = input[key];
    if (!value) throw new ConfigError(`${what}: ${key} is required by this loss; pass one value per token`);
    assertSameShape(what, 'logprobs_B_T', input.logprobs_B_T, key, value);
  }
  if (input.rolloutIsWeights_B_T) {
    assertSameShape(
      what,
      'logprobs_B_T',
      input.logprobs_B_T,
      'rolloutIsWeights_B_T',
      input.rolloutIsWeights_B_T,
    );
  }
}

function at(batch: Ragged | undefined, b: number, t: number, absent: number): number {
  return batch ? batch[b]![t]! : absent;
}

/**
 * Per-token policy loss ℓ_t and ∂ℓ_t/∂logp_t of a batch by name — `ppo` (verl vanilla: asymmetric clip
 * and dual clip; Tinker's ppo via `policyLossConfigFromTinker`), `importance_sampling`, `cispo`,
 * `cross_entropy` — with verl's metrics over trained tokens. Tokens with mask 0 get ℓ = ∂ℓ = 0;
 * rollout-correction weights multiply ℓ and ∂ℓ of the others. Shapes: `_B_T` in and out.
 */
export function computePolicyLoss(
  name: string,
  input: PolicyLossInput,
  config: PolicyLossConfig = {},
): PolicyLossResult {
  const kernel = lookupByName(
    'policy loss',
    kernels,
    (verlPolicyLossAliases as Record<string, string>)[name] ?? name,
  );
  const what = `policy loss "${name}"`;
  checkInputs(what, kernel, input);
  const resolved = resolvePolicyLossConfig(what, config);
  let count = 0;
  let clipped = 0;
  let clippedLower = 0;
  let negativeLogRatioSum = 0;
  let ratioSum = 0;
  let ratioMin = Number.POSITIVE_INFINITY;
  let ratioMax = Number.NEGATIVE_INFINITY;
  const dLossDLogprob_B_T = input.logprobs_B_T.map((row) => row.map(() => 0));
  const loss_B_T = input.logprobs_B_T.map((row, b) =>
    row.map((logprob, t) => {
      if (input.mask_B_T[b]![t] === 0) return 0;
      const x = {
        logprob,
        oldLogprob: at(input.oldLogprobs_B_T, b, t, 0),
        advantage: at(input.advantages_B_T, b, t, 0),
        weight: at(input.weights_B_T, b, t, 1),
      };
      if (!Number.isFinite(x.logprob + x.oldLogprob + x.advantage + x.weight)) {
        const values = Object.entries(x)
          .map(([k, v]) => `${k}=${v}`)
          .join(', ');
        throw new ConfigError(
          `${what}: token [${b}][${t}] has a non-finite input (${values}); check the rollout data`,
        );
      }
      const token = kernel.token(x, resolved);
      const isWeight = at(input.rolloutIsWeights_B_T, b, t, 1);
      dLossDLogprob_B_T[b]![t] = token.grad * isWeight;
      count += 1;
      if (token.clipped) clipped += 1;
      if (token.clippedLower) clippedLower += 1;
      if (token.ratio !== undefined) {
        negativeLogRatioSum -= Math.log(token.ratio);
        ratioSum += token.ratio;
        ratioMin = Math.min(ratioMin, token.ratio);
        ratioMax = Math.max(ratioMax, token.ratio);
      }
      return token.loss * isWeight;
    }),
  );
  const usesRatio = kernel.requires.includes('oldLogprobs_B_T') && count > 0;
  return {
    loss_B_T,
    dLossDLogprob_B_T,
    metrics: {
      clipFraction: count > 0 ? clipped / count : 0,
      clipFractionLower: count > 0 ? clippedLower / count : 0,
      ...(usesRatio
        ? { ppoKl: negativeLogRatioSum / count, ratioMean: ratioSum / count, ratioMin, ratioMax }
        : {}),
    },
  };
}
