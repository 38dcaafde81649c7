/**
 * npm run bench:ui — `sandgym ui` on a synthetic training run of 200 steps × 64 episodes (5 turns each,
 * ~2 KB observations): time from navigation to the first render of the runs list, the curves page (charts drawn),
 * of a step's episode table and of one trajectory, in Debian's Chromium through playwright-core; and the
 * server's resident memory after all that. Baseline in the same run: the same pages' JSON fetched by Node
 * without a browser (ratio = page / its data). Targets: each page under 1,000 ms, server under 500 MB.
 * Medians of ROUNDS; the last line is one line of JSON.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { episode } from '../src/ui/fixture-runs.ts';

const STEPS = 200;
const PER_STEP = 64;
const ROUNDS = 5;
const ROOT = join(import.meta.dirname, '..');

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function makeRun(root: string): void {
  const dir = join(root, 'big');
  mkdirSync(join(dir, 'rollouts'), { recursive: true });
  writeFileSync(join(dir, 'config.yaml'), 'trainer:\n  experiment_name: big\n');
  const observation = 'x'.repeat(2000);
  const metrics: string[] = [];
  for (let step = 1; step <= STEPS; step++) {
    const lines = Array.from({ length: PER_STEP }, (_, i) => {
      const t = episode(`task-${i % 8}`, Math.floor(i / 8), i % 3 === 0 ? 1 : 0, 5);
      for (const m of t.messages) if (m.role === 'tool') m.content = observation;
      return JSON.stringify(t);
    });
    writeFileSync(
      join(dir, 'rollouts', `step-${String(step).padStart(6, '0')}.jsonl`),
      `${lines.join('\n')}\n`,
    );
    metrics.push(
      JSON.stringify({
        step,
        time: new Date(1.8e12 + step * 60_000).toISOString(),
        'reward/resolved_rate': 0.3 + step / 1000,
        'actor/loss': 1 / step,
        'actor/kl': step / 1e4,
        'actor/entropy': 2 - step / 200,
        'actor/clip_fraction': 0.1,
        'response_length/mean': 500 + step,
        'perf/rollout_s': 30,
        ...(step % 10 === 0 ? { 'val/rl_resolved_rate': 0.3 + step / 1000 } : {}),
      }),
    );
  }
  writeFileSync(join(dir, 'metrics.jsonl'), `${metrics.join('\n')}\n`);
}

const root = mkdtempSync(join(tmpdir(), 'sandgym-bench-ui-'));
const server = spawn(process.execPath, [join(ROOT, 'bin', 'sandgym.js'), 'ui', root, '--port', '0'], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
try {
  makeRun(root);
  const url = await new Promise<string>((resolve, reject) => {
    server.stdout!.on('data', (d: Buffer) => {
      const m = /http:\/\/\S+/.exec(d.toString());
      if (m) resolve(m[0]);
    });
    server.once('exit', (code) => reject(new Error(`sandgym ui exited ${code}`)));
  });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport: { width: 1300, height: 1000 } });
  page.setDefaultTimeout(60_000);
  const step = 'rollouts%2Fstep-000100';
  const pages = {
    runs: {
      hash: '#/',
      ready: () => page.locator('tr[data-run="big"]').waitFor(),
      data: ['runs'],
    },
    curves: {
      hash: '#/run/big',
      ready: async () => {
        await page.locator('.chart[data-metric="val/rl_resolved_rate"] canvas').waitFor();
        await page.locator('.chart[data-metric="perf/rollout_s"] canvas').waitFor();
      },
      data: ['metrics?run=big', 'sets?run=big'],
    },
    episodes_table: {
      hash: `#/episodes/big/${step}`,
      ready: () => page.getByText(`${PER_STEP} episodes; 1–50`).waitFor(),
      data: [`episodes?run=big&set=${step}&filter=all&sort=key&task=&offset=0&limit=50`],
    },
    trajectory: {
      hash: `#/trajectory/big/${step}/task-3%230`,
      ready: () => page.locator('.turn.role-assistant').nth(4).waitFor(),
      data: [`trajectory?run=big&set=${step}&key=task-3%230`],
    },
  };
  const result: Record<string, number> = { episodes: STEPS * PER_STEP };
  for (const [name, p] of Object.entries(pages)) {
    const pageMs: number[] = [];
    const dataMs: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      await page.goto('about:blank');
      const t0 = performance.now();
      await page.goto(url + p.hash);
      await p.ready();
      pageMs.push(performance.now() - t0);
      const t1 = performance.now();
      await Promise.all(p.data.map(async (d) => (await fetch(`${url}api/${d}`)).text()));
      dataMs.push(performance.now() - t1);
    }
    result[`${name}_ms`] = Math.round(median(pageMs));
    result[`${name}_data_ms`] = Math.round(median(dataMs));
    console.log(
      `${name}: page ${median(pageMs).toFixed(0)} ms, its JSON alone ${median(dataMs).toFixed(0)} ms ` +
        `(×${(median(pageMs) / median(dataMs)).toFixed(2)}); rounds ${pageMs.map((x) => x.toFixed(0)).join(', ')}`,
    );
  }
  await browser.close();
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1]);
  result.server_rss_mb = Math.round(rssKb / 1024);
  console.log(`server RSS ${result.server_rss_mb} MB`);
  console.log(JSON.stringify(result));
} finally {
  server.kill();
  rmSync(root, { recursive: true, force: true });
}
