import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import { exportHtml } from './export.ts';
import { makeFixtureRuns } from './fixture-runs.ts';
import { startUiServer, type UiServer } from './server.ts';

/*
 * The page in a real browser: Debian's Chromium (scripts/setup.sh installs it) driven by playwright-core,
 * on the fixture runs directory. Screenshots of each page go to test-artifacts/ui/.
 */
const CHROMIUM = '/usr/bin/chromium';
const SHOTS = join(import.meta.dirname, '..', '..', 'test-artifacts', 'ui');

let root: string;
let ui: UiServer;
let browser: Browser;
let page: Page;

before(async () => {
  assert.ok(
    existsSync(CHROMIUM),
    `${CHROMIUM} is missing: run scripts/setup.sh (it installs Debian's chromium)`,
  );
  mkdirSync(SHOTS, { recursive: true });
  root = makeFixtureRuns();
  ui = await startUiServer({ runsDir: root, host: '127.0.0.1', port: 0 });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'], timeout: 120_000 });
  page = await browser.newPage({ viewport: { width: 1300, height: 1000 } });
  page.setDefaultTimeout(60_000);
});

after(async () => {
  await browser?.close();
  await ui?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

test('runs page lists the runs with status; two selected overlay their curves', {
  timeout: 180_000,
}, async () => {
  await page.goto(ui.url);
  await page.locator('tr[data-run]').nth(2).waitFor();
  assert.deepEqual(
    await page.locator('tr[data-run]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run'))),
    ['exp/train-a', 'run-oracle', 'stale'],
  );
  assert.equal(await page.locator('tr[data-run="exp/train-a"] .status-running').textContent(), 'running');
  await page.locator('tr[data-run="exp/train-a"] input').check();
  await page.locator('tr[data-run="stale"] input').check();
  await page.getByRole('button', { name: 'overlay selected' }).click();
  const loss = page.locator('.chart[data-metric="actor/loss"]');
  await loss.locator('canvas').waitFor();
  // Overlaid: the legend names both runs.
  assert.match((await loss.textContent()) ?? '', /exp\/train-a[\s\S]*stale/);
  await shot('runs');
});

test('a run in progress: its curves, updated live, and episode sets', { timeout: 180_000 }, async () => {
  await page.goto(`${ui.url}#/run/exp%2Ftrain-a`);
  await page.locator('.chart[data-metric="val/init_resolved_rate"] canvas').waitFor();
  await page.locator('.chart[data-metric="reward/resolved_rate"] canvas').waitFor();
  assert.equal(await page.getByRole('link', { name: 'rollouts/step-000001' }).count(), 1);
  await page.locator('.chart[data-metric="held-out"] canvas').waitFor();
  assert.match(
    (await page.locator('.chart[data-metric="terminations"]').textContent()) ?? '',
    /error[\s\S]*submitted/,
  );
  await page.locator('.chart[data-metric^="episode time"] canvas').waitFor();
  assert.match((await page.locator('table.heldout').textContent()) ?? '', /init-01\/1100\.0%20\.\d%–100\.0%/);
  // The run goes on: a new step's metrics appear without a reload.
  appendFileSync(
    join(root, 'exp', 'train-a', 'metrics.jsonl'),
    `${JSON.stringify({ step: 2, time: '2026-11-28T00:02:00Z', 'actor/entropy': 0.7 })}\n`,
  );
  await page.locator('.chart[data-metric="actor/entropy"] canvas').waitFor();
  await shot('curves');
  await page.locator('select').first().selectOption('time');
  await page.locator('.chart[data-metric="actor/entropy"] canvas').waitFor();
  assert.match((await page.locator('.chart[data-metric="actor/loss"]').textContent()) ?? '', /actor\/loss/);
});

test("episode table pages, filters, and shows a task's group", { timeout: 180_000 }, async () => {
  await page.goto(`${ui.url}#/episodes/exp%2Ftrain-a/rollouts%2Fstep-000001`);
  await page.getByText('70 episodes; 1–50').waitFor();
  await page.getByRole('button', { name: 'next ›' }).click();
  await page.getByText('70 episodes; 51–70').waitFor();
  await page.locator('select').first().selectOption('errored');
  await page.getByText(/^\d+ episodes; 1–\d+$/).waitFor();
  const terminations = await page.locator('tr.link td:nth-child(4)').allTextContents();
  assert.ok(terminations.length > 0 && terminations.every((t) => t === 'error'), terminations.join());
  await page.locator('select').first().selectOption('all');
  await page.getByText('70 episodes; 1–50').waitFor();
  // A task's group: its rollout.n samples side by side.
  await page.locator('td.group', { hasText: 'task-3' }).first().click();
  await page.getByText('7 episodes; 1–7').waitFor();
  assert.deepEqual(await page.locator('tr.link td:nth-child(2)').allTextContents(), [
    '0',
    '1',
    '2',
    '3',
    '4',
    '5',
    '6',
  ]);
  await shot('episodes');
});

test('a trajectory shows the tests, the diff and the turns', { timeout: 180_000 }, async () => {
  await page.goto(`${ui.url}#/episodes/run-oracle/trajectories`);
  await page.locator('tr.link').first().click();
  await page.locator('.diff-add', { hasText: '+x = 2' }).waitFor();
  const tests = await page.locator('table.tests tr').allTextContents();
  assert.ok(
    tests.some((t) => /FAIL_TO_PASS.*test_fix.*passed/.test(t)),
    tests.join('\n'),
  );
  assert.equal(await page.locator('.turn.role-assistant').count(), 3);
  assert.equal(await page.locator('summary.clipped').count(), 1);
  assert.match(
    (await page.locator('.turn.role-assistant').first().textContent()) ?? '',
    /→ bash\(\{"command":"ls"\}\)/,
  );
  await shot('trajectory');
});

test('the file sandgym ui --export writes works opened from disk', { timeout: 180_000 }, async () => {
  const file = join(root, 'export.html');
  writeFileSync(file, exportHtml(root));
  await page.goto(`file://${file}`);
  await page.locator('tr[data-run="exp/train-a"]').waitFor();
  await page.goto(`file://${file}#/episodes/exp%2Ftrain-a/rollouts%2Fstep-000001`);
  await page.getByText('70 episodes; 1–50').waitFor();
  await page.locator('select').first().selectOption('resolved');
  await page.getByText('24 episodes; 1–24').waitFor();
  await page.locator('tr.link').first().click();
  await page.locator('.diff-add', { hasText: '+x = 2' }).waitFor();
  await shot('export-trajectory');
});
