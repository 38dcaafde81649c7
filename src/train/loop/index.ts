/** The training loop: SFT and RL phases, validation, checkpoints and resume, metrics. */
export { type Checkpoint, latestCheckpoint, saveCheckpoint, type TrainerState } from './checkpoints.ts';
export { createTrainingEngine } from './create-engine.ts';
export { engineSamplers } from './engine-samplers.ts';
export { fanOut, JsonlMetrics, type MetricsSink, MlflowMetrics } from './metrics-log.ts';
export { type RunContext, rlLossConfig, seededOrder, sftSequences, validate } from './phases.ts';
export { buildRlBatch, type ExclusionReason, type RlBatch } from './rl-batch.ts';
export { runTokenizerDir } from './run-tokenizer.ts';
export { TensorboardMetrics } from './tensorboard-events.ts';
export { type Curve, formatCurve, type TrainRunOptions, trainRun } from './train-run.ts';
