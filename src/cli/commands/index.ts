import type { Command } from 'commander';
import { registerEngineCommand } from './engine.ts';
import { registerGcCommand } from './gc.ts';
import { registerImagesCommand } from './images.ts';
import { registerRunCommand } from './run.ts';
import { registerServeCommand } from './serve.ts';
import { registerMainCommand, registerTrainCommand } from './train.ts';
import { registerValidateCommand } from './validate.ts';

/** Each command lives in its own file and adds itself here. */
export function registerCommands(program: Command): void {
  registerImagesCommand(program);
  registerGcCommand(program);
  registerRunCommand(program);
  registerValidateCommand(program);
  registerTrainCommand(program);
  registerMainCommand(program);
  registerServeCommand(program);
  registerEngineCommand(program);
}
