/**
 * Writes the reference model's tokenizer assets, which Hugging Face loaders read from a directory:
 *
 *   node --import tsx src/train/reference/build-assets.ts && npx biome format --write src/train/reference/assets
 *
 * assets.test.ts fails while the checked-in files mean something else than what this produces.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { byteTokenizerJson } from './byte-tokenizer.ts';
import { tokenizerConfigJson } from './chat-template.ts';

export const ASSETS_DIR = fileURLToPath(new URL('./assets/', import.meta.url));

export function assetFiles(): Record<string, Record<string, unknown>> {
  return { 'tokenizer.json': byteTokenizerJson(), 'tokenizer_config.json': tokenizerConfigJson() };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await mkdir(ASSETS_DIR, { recursive: true });
  for (const [name, json] of Object.entries(assetFiles())) {
    await writeFile(`${ASSETS_DIR}${name}`, `${JSON.stringify(json, null, 2)}\n`);
  }
}
