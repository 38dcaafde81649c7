/** Test helper process: tries to create the local provider and prints the error's name and message. */
import { createLocalProvider } from '../index.ts';

try {
  await createLocalProvider({ home: process.argv[2] });
  process.stdout.write('created\n');
} catch (e) {
  process.stdout.write(`${(e as Error).name}: ${(e as Error).message}\n`);
}
