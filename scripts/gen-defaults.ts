import { writeFileSync } from 'node:fs';
import { renderDefaultsYaml } from '../src/config/index.ts';

writeFileSync(new URL('../configs/defaults.yaml', import.meta.url), renderDefaultsYaml());
