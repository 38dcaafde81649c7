import cliProgress from 'cli-progress';

/** Progress of long work: a bar on a terminal, a line every few seconds in logs (CI, redirected output). */
export interface Progress {
  tick(fields?: Record<string, string | number>): void;
  stop(): void;
}

export function createProgress(
  label: string,
  total: number,
  stream: NodeJS.WriteStream = process.stderr,
): Progress {
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        format: `${label} {bar} {value}/{total} {percentage}% | eta {eta_formatted} | {status}`,
        stream,
        hideCursor: true,
        etaBuffer: 20,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, 0, { status: '' });
    return {
      tick: (fields) => bar.increment(1, { status: formatFields(fields) }),
      stop: () => bar.stop(),
    };
  }
  let done = 0;
  let lastLog = 0;
  const start = Date.now();
  return {
    tick(fields) {
      done++;
      const now = Date.now();
      if (done === total || now - lastLog > 5000) {
        lastLog = now;
        const secs = ((now - start) / 1000).toFixed(0);
        stream.write(`${label} ${done}/${total} (${secs} s) ${formatFields(fields)}\n`);
      }
    },
    stop: () => undefined,
  };
}

function formatFields(fields?: Record<string, string | number>): string {
  return fields
    ? Object.entries(fields)
        .map(([k, v]) => `${k} ${v}`)
        .join(' | ')
    : '';
}
