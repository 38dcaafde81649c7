import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** A captured runner log from src/harness/fixtures (see its README for how each was made). */
export function fixtureLog(path: string): string {
  return readFileSync(fileURLToPath(new URL(`../fixtures/${path}`, import.meta.url)), 'utf8');
}
