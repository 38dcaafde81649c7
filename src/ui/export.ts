import { readFileSync } from 'node:fs';
import {
  episodePage,
  episodeRow,
  episodeSets,
  findRunDirs,
  heldOut,
  readMetrics,
  readTrajectories,
  runId,
  runInfo,
  summarizeSteps,
} from './run-dir.ts';
import { ASSETS, trajectoryView } from './server.ts';

/**
 * One self-contained HTML file of the runs under `root` (`sandgym ui --export`): the page, its script and
 * styles and uPlot inlined, and every answer the page asks for embedded, episodes and trajectories
 * included, so it opens from disk with no server.
 */
export function exportHtml(root: string): string {
  const byRun: Record<string, unknown> = {};
  const dirs = findRunDirs(root);
  for (const dir of dirs) {
    const episodes: Record<string, unknown> = {};
    for (const set of episodeSets(dir)) {
      const trajectories = readTrajectories(dir, set);
      episodes[set] = {
        rows: episodePage(trajectories.map(episodeRow), { offset: 0, limit: Number.POSITIVE_INFINITY }).rows,
        trajectories: Object.fromEntries(
          trajectories.map((t) => [`${t.taskId}#${t.sample}`, trajectoryView(t)]),
        ),
      };
    }
    byRun[runId(root, dir)] = {
      metrics: { metrics: readMetrics(dir) },
      sets: { sets: episodeSets(dir) },
      heldout: { heldOut: heldOut(dir) },
      steps: { steps: summarizeSteps(dir) },
      episodes,
    };
  }
  const data = { runs: dirs.map((d) => runInfo(root, d)), byRun };
  const text = (path: string) => readFileSync(ASSETS[path]!.file, 'utf8');
  // `<` escaped so no string in a trajectory can close the script element it sits in.
  const json = JSON.stringify(data).replaceAll('<', '\\u003c');
  const script = (body: string) => `<script>${body.replaceAll('</script', '<\\/script')}</script>`;
  return text('/')
    .replace('<link rel="stylesheet" href="uPlot.css">', () => `<style>${text('/uPlot.css')}</style>`)
    .replace('<link rel="stylesheet" href="app.css">', () => `<style>${text('/app.css')}</style>`)
    .replace('<script src="uPlot.js"></script>', () => script(text('/uPlot.js')))
    .replace(
      '<script src="app.js"></script>',
      () => `<script>window.SANDGYM_EXPORT = ${json};</script>${script(text('/app.js'))}`,
    );
}
