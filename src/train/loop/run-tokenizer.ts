import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Trajectory } from '../../agent/types.ts';
import type { Config } from '../../config/index.ts';
import { ConfigError } from '../../errors.ts';
import { loadChatTemplate } from '../../llm/index.ts';
import { ASSETS_DIR, trainBpe, writeBpeTokenizerDir } from '../reference/index.ts';
import { sftSequences } from './phases.ts';

/**
 * The tokenizer directory the reference engine uses (none for a Tinker server's model), per `engine.reference.tokenizer`: undefined for the
 * byte tokenizer, a directory as given, or — for `bpe` — one learned from the SFT trajectories (as the model
 * will read them) and kept in the run directory, so a resumed run reads the same one.
 */
export async function runTokenizerDir(
  config: Config,
  runDir: string,
  sft: readonly Trajectory[] | undefined,
): Promise<string | undefined> {
  // A Tinker server's model comes with its own tokenizer.
  if (config.trainer.engine === 'tinker') return undefined;
  const choice = config.engine.reference.tokenizer;
  if (choice === 'byte') return undefined;
  if (choice !== 'bpe') {
    if (!existsSync(join(choice, 'tokenizer.json'))) {
      throw new ConfigError(`engine.reference.tokenizer: ${choice} has no tokenizer.json`);
    }
    return choice;
  }
  const dir = join(runDir, 'tokenizer');
  if (existsSync(join(dir, 'tokenizer.json'))) return dir;
  if (!sft?.length) {
    throw new ConfigError(
      'engine.reference.tokenizer=bpe learns the tokenizer from SFT trajectories; pass --sft, or point ' +
        'engine.reference.tokenizer at a tokenizer dir (e.g. runs/micro/tokenizer)',
    );
  }
  const bytes = await loadChatTemplate(ASSETS_DIR);
  const corpus = (await sftSequences(sft, bytes, config.sft.only_resolved)).map((s) =>
    bytes.decode([...s.promptIds, ...s.responseIds], { keepSpecialTokens: true }),
  );
  writeBpeTokenizerDir(dir, trainBpe(corpus, config.engine.reference.bpe_merges));
  return dir;
}
