/**
 * Test helper process: creates N local sandboxes (argv[2]), each running a `sleep`, prints their ids as
 * one JSON line, then waits to be killed. The leak test `kill -9`s it and checks that gc cleans up.
 */
import { createLocal } from '../index.ts';

const n = Number(process.argv[2] ?? '20');
const provider = await createLocal();
const sandboxes = await Promise.all(
  Array.from({ length: n }, () => provider.create({ image: 'sandgym/base' })),
);
await Promise.all(sandboxes.map((s) => s.exec('sleep 1000 > /dev/null 2>&1 &')));
process.stdout.write(`${JSON.stringify(sandboxes.map((s) => s.id))}\n`);
setInterval(() => {}, 60_000);
