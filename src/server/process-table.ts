import type { ProcessConfig, ProcessSelector } from '../sandbox/e2b/index.ts';
import type { SandboxProcess } from '../sandbox/index.ts';

/** A process started through `process.Process/Start` that has not ended yet. */
export interface ServedProcess {
  /** The server's handle of the process (not a pid inside the sandbox: the providers hide those). */
  pid: number;
  config: ProcessConfig;
  tag: string | undefined;
  proc: SandboxProcess;
  stdinOpen: boolean;
  /** Runs on a pseudo-terminal: its output is sent as `pty` data, its input taken as `pty` input. */
  pty: boolean;
  /** For a PTY: the file in the sandbox that names its terminal (for resizes). */
  ttyFile: string | undefined;
}

/** The running processes of one sandbox, by handle and tag. */
export class ProcessTable {
  private nextPid = 1;
  private readonly byPid = new Map<number, ServedProcess>();

  add(
    proc: SandboxProcess,
    config: ProcessConfig,
    tag: string | undefined,
    stdinOpen: boolean,
    ttyFile?: string,
  ): ServedProcess {
    const served: ServedProcess = {
      pid: this.nextPid++,
      config,
      tag,
      proc,
      stdinOpen,
      pty: ttyFile !== undefined,
      ttyFile,
    };
    this.byPid.set(served.pid, served);
    return served;
  }

  find(selector: ProcessSelector): ServedProcess | undefined {
    if ('pid' in selector) return this.byPid.get(selector.pid);
    return [...this.byPid.values()].find((p) => p.tag === selector.tag);
  }

  remove(pid: number): void {
    this.byPid.delete(pid);
  }

  list(): ServedProcess[] {
    return [...this.byPid.values()];
  }
}
