/**
 * Test helper process: creates N local sandboxes (argv[2]; the first argv[3] of them with network),
 * each running a `sleep`, prints their ids as one JSON line, then waits to be killed. The leak test
 * `kill -9`s it and checks that gc cleans up.
 */
import { createLocal } from '../index.ts';

const n = Number(process.argv[2] ?? '20');
const withNetwork = Number(process.argv[3] ?? '0');
const provider = await createLocal();
const sandboxes = await Promise.all(
  Array.from({ length: n }, (_, k) => provider.create({ image: 'sandgym/base', network: k < withNetwork })),
);
await Promise.all(sandboxes.map((s) => s.exec('sleep 1000 > /dev/null 2>&1 &')));
process.stdout.write(`${JSON.stringify(sandboxes.map((s) => s.id))}\n`);
setInterval(() => {}, 60_000);
