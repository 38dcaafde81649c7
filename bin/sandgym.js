#!/usr/bin/env node
// Runs the TypeScript sources directly: no build step to forget, no stale dist/.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
