import type { Config } from '../../config/index.ts';
import type { TrainingEngine } from '../engine.ts';
import { modelConfigFromSection, ReferenceEngine } from '../reference/index.ts';
import { TinkerEngine, tinkerOptionsFromConfig } from '../tinker/index.ts';

/** The engine `trainer.engine` names: the in-process reference engine, or a Tinker API server. */
export async function createTrainingEngine(
  config: Config,
  env: Record<string, string | undefined>,
): Promise<TrainingEngine> {
  if (config.trainer.engine === 'tinker') {
    return TinkerEngine.create(tinkerOptionsFromConfig(config.engine.tinker, env));
  }
  return ReferenceEngine.create({
    model: modelConfigFromSection(config.engine.reference),
    seed: config.trainer.seed,
  });
}
