import { writeFileSync } from 'node:fs';
import { renderMicroDataset } from './generate.ts';

const { train, heldout } = renderMicroDataset();
writeFileSync(new URL('train.jsonl', import.meta.url), train);
writeFileSync(new URL('heldout.jsonl', import.meta.url), heldout);
