import type { Command } from 'commander';

type Register = (program: Command) => void;

/**
 * Each command lives in its own file and adds itself here. Only the command being run is loaded (each
 * brings its own stack: sandboxes, engines, Parquet), so a bad setting fails before the rest loads; help
 * and an unknown command load them all.
 */
const COMMANDS: Record<string, () => Promise<Register>> = {
  images: async () => (await import('./images.ts')).registerImagesCommand,
  gc: async () => (await import('./gc.ts')).registerGcCommand,
  run: async () => (await import('./run.ts')).registerRunCommand,
  validate: async () => (await import('./validate.ts')).registerValidateCommand,
  train: async () => (await import('./train.ts')).registerTrainCommand,
  main: async () => (await import('./train.ts')).registerMainCommand,
  serve: async () => (await import('./serve.ts')).registerServeCommand,
  engine: async () => (await import('./engine.ts')).registerEngineCommand,
  ui: async () => (await import('./ui.ts')).registerUiCommand,
};

export async function registerCommands(
  program: Command,
  argv: readonly string[] = process.argv,
): Promise<void> {
  const name = argv[2];
  const chosen =
    name !== undefined && Object.hasOwn(COMMANDS, name) ? [COMMANDS[name]!] : Object.values(COMMANDS);
  for (const register of await Promise.all(chosen.map((load) => load()))) register(program);
}
