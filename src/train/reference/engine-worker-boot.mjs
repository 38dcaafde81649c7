// Worker entry: workers do not inherit the parent's TypeScript loader, so register tsx here first.
import { register } from 'tsx/esm/api';

register();
await import('./engine-worker.ts');
