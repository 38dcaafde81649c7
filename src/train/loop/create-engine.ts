import type { Config } from '../../config/index.ts';
import type { TrainingEngine } from '../engine.ts';
import { modelConfigFromSection, ReferenceEngine, readBpeTokenizerDir } from '../reference/index.ts';
import { TinkerEngine, tinkerOptionsFromConfig } from '../tinker/index.ts';

/**
 * The engine `trainer.engine` names: the in-process reference engine (with the run's tokenizer, see
 * runTokenizerDir), or a Tinker API server, whose warnings (settings it ignores, missed heartbeats) go
 * to `log`.
 */
export async function createTrainingEngine(
  config: Config,
  env: Record<string, string | undefined>,
  tokenizerDir?: string,
  log?: (message: string) => void,
): Promise<TrainingEngine> {
  if (config.trainer.engine === 'tinker') {
    return TinkerEngine.create({
      ...tinkerOptionsFromConfig(config.engine.tinker, env),
      ...(log ? { onWarning: log } : {}),
    });
  }
  const vocab = tokenizerDir ? readBpeTokenizerDir(tokenizerDir).vocabSize : undefined;
  return ReferenceEngine.create({
    model: modelConfigFromSection(config.engine.reference, vocab),
    seed: config.trainer.seed,
    ...(tokenizerDir ? { tokenizerDir } : {}),
  });
}
