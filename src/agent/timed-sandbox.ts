import type { Sandbox } from '../sandbox/index.ts';

const TIMED = new Set(['exec', 'spawn', 'readFile', 'writeFile', 'uploadDir', 'downloadDir']);

/**
 * The same sandbox, counting the time its calls take: the part of a step spent in the sandbox, so the rest
 * (our own overhead) can be measured. Spawned processes count only until they have started.
 */
export function timedSandbox(sandbox: Sandbox): { sandbox: Sandbox; elapsedMs: () => number } {
  let total = 0;
  const proxy = new Proxy(sandbox, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof prop !== 'string' || !TIMED.has(prop) || typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const t0 = performance.now();
        try {
          return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        } finally {
          total += performance.now() - t0;
        }
      };
    },
  });
  return { sandbox: proxy, elapsedMs: () => total };
}
