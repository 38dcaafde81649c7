import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TRAJECTORY_FORMAT, type Trajectory, type TurnRecord } from '../../agent/types.ts';
import { loadConfig } from '../../config/index.ts';
import { buildRlBatch, hasLearningSignal, nothingToTrainOn, selectTrainable } from './rl-batch.ts';

function turn(promptIds: number[], completionIds: number[], logprob = -0.5): TurnRecord {
  return {
    finishReason: 'tool_calls',
    rawFinishReason: 'stop',
    tokens: { promptIds, completionIds, completionLogprobs: completionIds.map(() => logprob) },
    usage: { promptTokens: promptIds.length, completionTokens: completionIds.length },
    toolCalls: [],
    observationChars: 0,
    llmMs: 0,
    envMs: 0,
    sandboxMs: 0,
    totalMs: 0,
  };
}

function traj(
  taskId: string,
  sample: number,
  reward: number | null,
  turns: TurnRecord[],
  termination: Trajectory['termination'] = 'submitted',
): Trajectory {
  return {
    format: TRAJECTORY_FORMAT,
    sandgymVersion: '0',
    taskId,
    sample,
    policy: 'p',
    termination,
    reward,
    patch: '',
    messages: [],
    turns,
    timing: { startedAt: '', episodeMs: 0, prepareMs: 0, gradeMs: 0 },
  };
}

// Two turns: prompt [1,2], completion [3]; then prompt [1,2,3,9] (observation 9), completion [4,5].
const twoTurns = () => [turn([1, 2], [3]), turn([1, 2, 3, 9], [4, 5])];

describe('buildRlBatch', () => {
  it('makes Tinker datums with GRPO advantages on model tokens only, scaled by token-mean', () => {
    const config = loadConfig([], ['algorithm.adv_estimator=grpo', 'actor.loss_agg_mode=token-mean']);
    const batch = buildRlBatch(
      selectTrainable([traj('t', 0, 1, twoTurns()), traj('t', 1, 0, twoTurns())], config, 1024),
      config,
    );
    assert.equal(batch.datums.length, 2);
    // Scores 1 and 0: mean 0.5, unbiased std √0.5 ≈ 0.70711 → A = ±0.5/(0.70711+1e-6) ≈ ±0.707106.
    // token-mean over 2×3 model tokens: weight 1/6 → ±0.117851 per model token.
    const d0 = batch.datums[0]!;
    assert.deepEqual(d0.model_input.chunks[0]!.tokens, [1, 2, 3, 9, 4]);
    assert.deepEqual(d0.loss_fn_inputs.target_tokens.data, [2, 3, 9, 4, 5]);
    const a = d0.loss_fn_inputs.advantages!.data;
    const expected = 0.5 / (Math.sqrt(0.5) + 1e-6) / 6;
    for (const [i, v] of [0, expected, 0, expected, expected].entries())
      assert.ok(Math.abs(a[i]! - v) < 1e-9, `advantage ${i}`);
    assert.deepEqual(d0.loss_fn_inputs.logprobs!.data, [0, -0.5, 0, -0.5, -0.5]);
    assert.ok(Math.abs(batch.datums[1]!.loss_fn_inputs.advantages!.data[1]! + expected) < 1e-9);
    assert.equal(batch.metrics['reward/mean'], 0.5);
  });

  it('masks errors, token drift and compact-filtered episodes, and keeps them out of the group baseline', () => {
    const config = loadConfig([], ['algorithm.adv_estimator=rloo']);
    const drift = [turn([1, 2], [3]), turn([1, 7, 3, 9], [4])];
    const batch = buildRlBatch(
      selectTrainable(
        [
          traj('t', 0, 1, twoTurns()),
          traj('t', 1, 0, twoTurns()),
          traj('t', 2, null, twoTurns(), 'error'),
          traj('t', 3, 1, drift),
          traj('t', 4, 0, twoTurns(), 'max_steps'),
        ],
        config,
        1024,
      ),
      config,
    );
    assert.equal(batch.metrics['rollout/trained'], 2);
    assert.equal(batch.metrics['rollout/masked_error'], 1);
    assert.equal(batch.metrics['rollout/masked_token_mismatch'], 1);
    assert.equal(batch.metrics['rollout/masked_filtered'], 1);
    // RLOO over the two kept: A = r − mean(others) = ±1, times seq-mean-token-sum weight 1/2.
    assert.equal(batch.datums[0]!.loss_fn_inputs.advantages!.data[1], 0.5);
  });

  it('drops sequences longer than the model context and samplers without token ids', () => {
    const config = loadConfig();
    const noTokens = { ...turn([1], [2]), tokens: undefined } as unknown as TurnRecord;
    const b = buildRlBatch(
      selectTrainable([traj('t', 0, 1, twoTurns()), traj('t', 1, 1, [noTokens])], config, 3),
      config,
    );
    assert.equal(b.metrics['rollout/masked_too_long'], 1);
    assert.equal(b.metrics['rollout/masked_no_tokens'], 1);
    assert.equal(b.datums.length, 0);
  });

  it('takes β·KL(sampler ‖ reference) off the reward before the advantages, and reports the KL', () => {
    const config = loadConfig([], ['algorithm.adv_estimator=rloo', 'algorithm.kl_penalty=kl']);
    const set = selectTrainable([traj('t', 0, 1, twoTurns()), traj('t', 1, 0, twoTurns())], config, 1024);
    // Response tokens [3, 9, 4, 5], 9 an observation; sampler logprobs −0.5 on model tokens.
    // k1 = sampler − ref: sequence 0 → [0.5, ·, 0, 0], sequence 1 → [0, ·, 0, 1].
    const b = buildRlBatch(set, config, {
      ref_B_T: [
        [-1, 0, -0.5, -0.5],
        [-0.5, 0, -0.5, -1.5],
      ],
      klCoef: 0.1,
    });
    // Scores 1 − 0.05 = 0.95 and 0 − 0.1 = −0.1; RLOO ±1.05; seq-mean-token-sum weight 1/2.
    assert.ok(Math.abs(b.datums[0]!.loss_fn_inputs.advantages!.data[1]! - 0.525) < 1e-9);
    assert.ok(Math.abs(b.datums[1]!.loss_fn_inputs.advantages!.data[1]! + 0.525) < 1e-9);
    // Mean over sequences of the per-sequence mean over its 3 model tokens: (0.5/3 + 1/3) / 2.
    assert.ok(Math.abs(b.metrics['kl/observed']! - 0.25) < 1e-6);
    assert.equal(b.metrics['kl/coef'], 0.1);
  });

  it('weights advantages by truncated importance ratios of trainer over sampler', () => {
    const config = loadConfig(
      [],
      [
        'algorithm.adv_estimator=rloo',
        'algorithm.rollout_correction.tis_mode=token',
        'algorithm.rollout_correction.tis_cap=2',
      ],
    );
    const set = selectTrainable([traj('t', 0, 1, twoTurns()), traj('t', 1, 0, twoTurns())], config, 1024);
    const same = [-0.5, 0, -0.5, -0.5];
    const b = buildRlBatch(set, config, { trainer_B_T: [[-0.5 + Math.log(3), 0, -0.5, -0.5], same] });
    const a = b.datums[0]!.loss_fn_inputs.advantages!.data;
    // Ratio 3 on the first token, truncated to 2; ratio 1 elsewhere. RLOO +1 × weight 1/2.
    assert.ok(Math.abs(a[1]! - 1) < 1e-6, `${a[1]}`);
    assert.ok(Math.abs(a[3]! - 0.5) < 1e-9);
    // Before truncation: (3 + 1 + 1 + 1 + 1 + 1) / 6.
    assert.ok(Math.abs(b.metrics['rollout_is/mean']! - 8 / 6) < 1e-6);
  });
});

describe('steps that cannot learn', () => {
  it('a batch whose every group had equal rewards has no learning signal; one with a difference has', () => {
    const config = loadConfig([], ['algorithm.adv_estimator=grpo']);
    const batchOf = (rewards: number[]) =>
      buildRlBatch(
        selectTrainable(
          rewards.map((r, i) => traj(i < 2 ? 'a' : 'b', i % 2, r, twoTurns())),
          config,
          1024,
        ),
        config,
      );
    assert.equal(hasLearningSignal(batchOf([1, 1, 0, 0])), false, 'a all solved, b all failed');
    assert.equal(hasLearningSignal(batchOf([1, 1, 1, 0])), true);
  });

  it('a step whose every episode was masked is an error naming the reasons and the most common ending', () => {
    const config = loadConfig();
    const trajectories = [0, 1, 2].map((i) => ({
      ...traj('t', i, 0, twoTurns(), 'token_budget'),
      detail: 'no room left (context) before turn 1',
    }));
    const set = selectTrainable(trajectories, config, 1024);
    assert.equal(set.kept.length, 0);
    assert.equal(
      nothingToTrainOn(3, trajectories, set.metrics).message,
      'rl step 3: nothing to train on: all 3 episodes were masked (filtered 3); most common ending (3×): no ' +
        'room left (context) before turn 1. Check the budgets against the model (data.max_prompt_length, ' +
        'data.max_response_length, the engine context) with "sandgym train --dry-run"',
    );
  });
});
