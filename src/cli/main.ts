import { Command } from 'commander';
import { isSandgymError } from '../errors.ts';
import { registerCommands } from './commands/index.ts';

const program = new Command('sandgym')
  .description('Train and evaluate software-engineering agents with reinforcement learning.')
  .version('0.1.0')
  .showHelpAfterError('(run with --help for usage)');

await registerCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (e) {
  // Our own errors already say what happened and what to do; anything else is a bug worth a stack.
  if (isSandgymError(e)) {
    process.stderr.write(`sandgym: ${e.message}\n`);
  } else {
    process.stderr.write(
      `sandgym: unexpected error\n${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`,
    );
  }
  process.exitCode = 1;
}
