import { statSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { ConfigError } from '../../errors.ts';
import { exportHtml } from '../../ui/export.ts';
import { findRunDirs } from '../../ui/run-dir.ts';
import { startUiServer } from '../../ui/server.ts';

interface UiFlags {
  port: string;
  host: string;
  export?: string;
}

export function registerUiCommand(program: Command): void {
  program
    .command('ui')
    .description(
      'Serve a local web viewer of the runs under a directory: runs with their status, training curves, ' +
        'episode tables per step and each trajectory (turns, tool calls, observations, diff, tests). ' +
        'Bound to 127.0.0.1 unless --host says otherwise; then a token in the printed URL is required.',
    )
    .argument('[runs-dir]', 'directory of runs (sandgym run and train output), or one run', 'runs')
    .option('--port <n>', 'port (0: any free one)', '6007')
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option(
      '--export <file.html>',
      'write one self-contained HTML file of the runs (episodes included) and exit',
    )
    .action(async (runsDir: string, flags: UiFlags) => {
      if (flags.export) {
        if (findRunDirs(runsDir).length === 0)
          throw new ConfigError(`no runs under ${runsDir} (a run has config.yaml)`);
        writeFileSync(flags.export, exportHtml(runsDir));
        process.stdout.write(
          `sandgym ui: wrote ${flags.export} (${(statSync(flags.export).size / 1e6).toFixed(1)} MB)\n`,
        );
        return;
      }
      const port = Number(flags.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw new ConfigError(`--port ${flags.port}: expected a port number 0-65535`);
      const ui = await startUiServer({ runsDir, host: flags.host, port }).catch((e: Error) => {
        throw new ConfigError(
          `cannot listen on ${flags.host}:${port}: ${e.message}; choose another --port or --host`,
        );
      });
      process.stdout.write(`sandgym ui: ${ui.url} (runs under ${runsDir}; Ctrl-C stops)\n`);
    });
}
