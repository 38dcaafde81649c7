import { parquetWriteBuffer } from 'hyparquet-writer';
import { toVerlBatch } from '../rl/index.ts';

/** One trained sequence as the export takes it (the RL batch's samples). */
export interface VerlExportSample {
  taskId: string;
  sample: number;
  promptIds: readonly number[];
  responseIds: readonly number[];
  responseMask: readonly number[];
  logprobs: readonly number[];
  advantages: readonly number[];
  reward: number;
}

export interface VerlExportOptions {
  maxPromptLength: number;
  maxResponseLength: number;
  padTokenId: number;
}

/** A LIST<element> column as Parquet's 3-level layout writes it (what pyarrow, DuckDB and Spark read). */
function listColumn(name: string, element: 'INT32' | 'FLOAT') {
  return [
    { name, repetition_type: 'OPTIONAL' as const, num_children: 1, converted_type: 'LIST' as const },
    { name: 'list', repetition_type: 'REPEATED' as const, num_children: 1 },
    { name: 'element', repetition_type: 'REQUIRED' as const, type: element },
  ];
}

const rightPad = (row: readonly number[], width: number) => [
  ...row.slice(0, width),
  ...new Array<number>(Math.max(0, width - row.length)).fill(0),
];

/**
 * A training step's batch as one Parquet file in verl's DataProto layout: one row per sequence, every
 * tensor key of verl's PPO batch as a list column of fixed width — `prompts` (left-padded to
 * max_prompt_length), `responses`, `input_ids`, `attention_mask`, `position_ids`, `response_mask`,
 * `token_level_scores`, `token_level_rewards`, `advantages`, `returns` and `rollout_log_probs` — plus
 * `uid` (the task, verl's group key) and `reward`. `docs/verl-export.md` shows how to load it into a
 * `DataProto` for `update_actor`.
 */
export function exportVerlBatch(samples: readonly VerlExportSample[], o: VerlExportOptions): ArrayBuffer {
  const batch = toVerlBatch(
    samples.map((s) => ({
      promptIds: s.promptIds,
      responseIds: s.responseIds,
      responseMask: s.responseMask,
      responseLogprobs: s.logprobs,
      reward: s.reward,
    })),
    o,
  );
  const t = batch.tensors;
  const advantages = samples.map((s) => rightPad(s.advantages, o.maxResponseLength));
  const columns: [string, 'INT32' | 'FLOAT', number[][]][] = [
    ['prompts', 'INT32', t.prompts],
    ['responses', 'INT32', t.responses],
    ['input_ids', 'INT32', t.input_ids],
    ['attention_mask', 'INT32', t.attention_mask],
    ['position_ids', 'INT32', t.position_ids],
    ['response_mask', 'INT32', t.response_mask],
    ['token_level_scores', 'FLOAT', t.token_level_scores],
    // No KL in the reward here: rewards equal scores, as verl sets them when use_kl_in_reward is off.
    ['token_level_rewards', 'FLOAT', t.token_level_scores],
    ['advantages', 'FLOAT', advantages],
    // Outcome estimators set returns = advantages, as verl does.
    ['returns', 'FLOAT', advantages],
    ['rollout_log_probs', 'FLOAT', t.rollout_log_probs ?? t.responses.map((r) => r.map(() => 0))],
  ];
  return parquetWriteBuffer({
    columnData: [
      { name: 'uid', data: samples.map((s) => s.taskId) },
      { name: 'sample', data: samples.map((s) => s.sample) },
      { name: 'reward', data: samples.map((s) => s.reward) },
      ...columns.map(([name, , data]) => ({ name, data })),
    ],
    schema: [
      { name: 'root', num_children: 3 + columns.length },
      { name: 'uid', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
      { name: 'sample', type: 'INT32', repetition_type: 'REQUIRED' },
      { name: 'reward', type: 'FLOAT', repetition_type: 'REQUIRED' },
      ...columns.flatMap(([name, element]) => listColumn(name, element)),
    ],
  });
}
