// sandgym ui: a hash-routed page over the server's JSON endpoints (/api/*). No build step, no CDN.

const main = document.getElementById('main');
const crumbs = document.getElementById('crumbs');

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v);
  }
  for (const c of children.flat())
    el.append(c instanceof Node ? c : document.createTextNode(String(c ?? '')));
  return el;
}

async function api(path, params) {
  if (window.SANDGYM_EXPORT) return exported(window.SANDGYM_EXPORT, path, params);
  const res = await fetch(`/api/${path}?${new URLSearchParams(params)}`);
  const body = await res.json();
  if (!res.ok) throw new Error(body.error || res.statusText);
  return body;
}

/** The curves' x axis: training step, or wall time (metrics.jsonl's `time`). */
let xAxis = 'step';

/** How often a shown run's curves are checked for new steps. */
const LIVE_MS = 5000;

/**
 * The answers of a page written by `sandgym ui --export`: the same JSON the server gives, embedded. Episode
 * tables are filtered and paged here as the server's episodePage does (run-dir.ts).
 */
function exported(data, path, q) {
  if (path === 'runs') return { runs: data.runs };
  const run = data.byRun[q.run];
  if (!run) throw new Error(`no run ${q.run} in this file`);
  if (path === 'metrics' || path === 'sets' || path === 'heldout') return run[path];
  const set = run.episodes[q.set];
  if (!set) throw new Error(`no episode set ${q.set}`);
  if (path === 'trajectory') {
    const t = set.trajectories[q.key];
    if (!t) throw new Error(`no episode ${q.key}`);
    return t;
  }
  let rows = set.rows.filter(
    (x) =>
      (!q.task || x.task === q.task) &&
      (q.filter === 'failed'
        ? x.reward === 0
        : q.filter === 'errored'
          ? x.termination === 'error'
          : q.filter === 'resolved'
            ? x.reward === 1
            : true),
  );
  if (q.sort === 'turns') rows = [...rows].sort((a, b) => b.turns - a.turns);
  else if (q.sort === 'time') rows = [...rows].sort((a, b) => b.episodeMs - a.episodeMs);
  return { total: rows.length, rows: rows.slice(q.offset, q.offset + q.limit) };
}

const pct = (x) => (x == null ? '–' : `${(100 * x).toFixed(1)}%`);
const route = (...parts) => `#/${parts.map(encodeURIComponent).join('/')}`;

async function render() {
  const [view, ...args] = location.hash.slice(2).split('/').map(decodeURIComponent);
  main.replaceChildren('loading…');
  try {
    if (view === 'run') await runPage(args[0]);
    else if (view === 'episodes') await episodesPage(args[0], args[1]);
    else if (view === 'trajectory') await trajectoryPage(args[0], args[1], args[2]);
    else await runsPage();
  } catch (e) {
    main.replaceChildren(h('p', { class: 'fail' }, `error: ${e.message}`));
  }
}

async function runsPage() {
  crumbs.replaceChildren('runs');
  const { runs } = await api('runs', {});
  const picked = new Set();
  const overlay = h('div', { class: 'charts' });
  const compare = h('button', { onclick: () => overlayCurves([...picked], overlay) }, 'overlay selected');
  main.replaceChildren(
    h(
      'table',
      {},
      h(
        'tr',
        {},
        h('th', {}, ''),
        h('th', {}, 'run'),
        h('th', {}, 'kind'),
        h('th', {}, 'status'),
        h('th', {}, 'steps'),
        h('th', {}, 'held-out resolved'),
        h('th', {}, 'episodes'),
        h('th', {}, 'updated'),
      ),
      runs.map((r) =>
        r.error
          ? h(
              'tr',
              { 'data-run': r.id },
              h('td', {}, ''),
              h('td', {}, r.id),
              h('td', { class: 'fail', colspan: 6 }, r.error),
            )
          : h(
              'tr',
              { class: 'link', 'data-run': r.id },
              h(
                'td',
                {},
                h('input', {
                  type: 'checkbox',
                  onclick: (e) => {
                    e.stopPropagation();
                    e.target.checked ? picked.add(r.id) : picked.delete(r.id);
                  },
                }),
              ),
              h('td', { onclick: () => (location.hash = route('run', r.id)) }, r.id),
              h('td', {}, r.kind),
              h('td', { class: `status-${r.status}` }, r.status),
              h('td', {}, r.steps),
              h('td', {}, pct(r.latestResolvedRate)),
              h('td', {}, r.episodes),
              h('td', {}, r.updatedAt.slice(0, 19)),
            ),
      ),
    ),
    runs.length
      ? h('div', { class: 'controls' }, compare)
      : h('p', {}, 'no runs here (a run is a directory with config.yaml)'),
    overlay,
  );
}

/** Metric names in the order people look at them; anything else logged follows. */
const FIRST = [
  'val/',
  'reward/',
  'actor/loss',
  'actor/kl',
  'actor/entropy',
  'actor/clip_fraction',
  'response',
  'perf/',
];

function metricNames(points) {
  const names = new Set();
  for (const p of points)
    for (const [k, v] of Object.entries(p)) if (k !== 'step' && typeof v === 'number') names.add(k);
  const rank = (n) => {
    const i = FIRST.findIndex((f) => n.startsWith(f));
    return i < 0 ? FIRST.length : i;
  };
  return [...names].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

function chart(title, xs, series, labels, wallTime = false) {
  const box = h('div', { class: 'chart', 'data-metric': title }, h('h3', {}, title));
  const opts = {
    width: 380,
    height: 200,
    scales: { x: { time: wallTime } },
    series: [
      { label: wallTime ? 'time' : 'step' },
      ...labels.map((label, i) => ({ label, stroke: `hsl(${(i * 137) % 360} 70% 45%)`, spanGaps: true })),
    ],
    legend: { show: labels.length > 1 },
  };
  new uPlot(opts, [xs, ...series], box);
  return box;
}

/** Series per metric over the union of steps (null where a run has no value). */
function curves(runsMetrics, names) {
  const steps = [
    ...new Set(
      runsMetrics.flatMap((m) => m.points.filter((p) => names.some((n) => n in p)).map((p) => p.step)),
    ),
  ].sort((a, b) => a - b);
  return {
    steps,
    of: (points, name) =>
      steps.map((s) => {
        const p = points.find((q) => q.step === s && name in q);
        return p ? p[name] : null;
      }),
  };
}

async function runPage(run) {
  crumbs.replaceChildren(h('a', { href: '#/' }, 'runs'), ` / ${run}`);
  const [{ metrics }, { sets }, { heldOut }] = await Promise.all([
    api('metrics', { run }),
    api('sets', { run }),
    api('heldout', { run }),
  ]);
  // Summarizing every step's episodes reads them all the first time: the curves do not wait for it.
  const stepsBox = h('div');
  api('steps', { run })
    .then(({ steps }) => steps.length && stepsBox.replaceChildren(stepsView(steps)))
    .catch((e) => stepsBox.replaceChildren(h('p', { class: 'fail' }, `episodes per step: ${e.message}`)));
  const charts = h('div', { class: 'charts' });
  const draw = () => {
    charts.replaceChildren();
    for (const name of metricNames(metrics)) {
      if (xAxis === 'time') {
        const points = metrics.filter((p) => name in p);
        charts.append(
          chart(
            name,
            points.map((p) => Date.parse(p.time) / 1000),
            [points.map((p) => p[name])],
            [name],
            true,
          ),
        );
      } else {
        const c = curves([{ points: metrics }], [name]);
        charts.append(chart(name, c.steps, [c.of(metrics, name)], [name]));
      }
    }
  };
  draw();
  const axis = h(
    'select',
    {
      onchange: (e) => {
        xAxis = e.target.value;
        draw();
      },
    },
    ['step', 'time'].map((v) => h('option', { value: v }, v)),
  );
  axis.value = xAxis;
  main.replaceChildren(
    h('h2', {}, 'episodes'),
    h(
      'ul',
      {},
      sets.map((s) => h('li', {}, h('a', { href: route('episodes', run, s) }, s))),
    ),
    heldOut.length ? heldOutView(heldOut) : '',
    stepsBox,
    h('h2', {}, 'curves'),
    h('div', { class: 'controls' }, 'x axis', axis),
    metrics.length ? charts : h('p', {}, 'no metrics.jsonl (an evaluation run has none)'),
  );
  // A run that is training adds lines to metrics.jsonl: redraw when it grew, while this page is shown.
  const shown = location.hash;
  const timer = setInterval(async () => {
    if (location.hash !== shown) return clearInterval(timer);
    const now = await api('metrics', { run }).catch(() => undefined);
    if (now && now.metrics.length !== metrics.length && location.hash === shown) {
      clearInterval(timer);
      render();
    }
  }, LIVE_MS);
}

/** Held-out resolved rate after each validation, the band its Wilson 95% interval. */
function heldOutView(points) {
  const box = h(
    'div',
    { class: 'chart', 'data-metric': 'held-out' },
    h('h3', {}, 'held-out resolved rate (95% interval)'),
  );
  const xs = points.map((_, i) => i);
  new uPlot(
    {
      width: 380,
      height: 200,
      scales: { x: { time: false }, y: { range: [0, 1] } },
      axes: [{ values: (_, ticks) => ticks.map((t) => points[t]?.label ?? '') }, {}],
      series: [
        { label: 'validation' },
        { label: 'rate', stroke: '#07a', width: 2 },
        { label: 'low', stroke: '#07a4', dash: [4, 4] },
        { label: 'high', stroke: '#07a4', dash: [4, 4] },
      ],
      bands: [{ series: [3, 2], fill: '#07a2' }],
      legend: { show: false },
    },
    [xs, points.map((p) => p.rate), points.map((p) => p.low), points.map((p) => p.high)],
    box,
  );
  return h(
    'div',
    {},
    h('h2', {}, 'held out'),
    h(
      'div',
      { class: 'charts' },
      box,
      h(
        'table',
        { class: 'heldout' },
        h(
          'tr',
          {},
          ['validation', 'resolved', 'rate', '95% interval'].map((c) => h('th', {}, c)),
        ),
        points.map((p) =>
          h(
            'tr',
            {},
            h('td', {}, p.label),
            h('td', {}, `${p.resolved}/${p.scored}`),
            h('td', {}, pct(p.rate)),
            h('td', {}, `${pct(p.low)}–${pct(p.high)}`),
          ),
        ),
      ),
    ),
  );
}

/** From each RL step's episodes: termination reasons, and where an episode's time went. */
function stepsView(steps) {
  const xs = steps.map((s) => s.step);
  const reasons = [...new Set(steps.flatMap((s) => Object.keys(s.terminations)))].sort();
  return h(
    'div',
    {},
    h('h2', {}, 'episodes per step'),
    h(
      'div',
      { class: 'charts' },
      chart(
        'terminations',
        xs,
        reasons.map((r) => steps.map((s) => s.terminations[r] ?? 0)),
        reasons,
      ),
      chart(
        'episode time (ms): LLM / sandbox / tests',
        xs,
        ['llmMs', 'sandboxMs', 'gradeMs'].map((k) => steps.map((s) => s[k])),
        ['LLM', 'sandbox', 'tests'],
      ),
    ),
  );
}

async function overlayCurves(runs, into) {
  const all = await Promise.all(
    runs.map(async (run) => ({ run, points: (await api('metrics', { run })).metrics })),
  );
  into.replaceChildren();
  const names = [...new Set(all.flatMap((m) => metricNames(m.points)))];
  for (const name of names) {
    const c = curves(all, [name]);
    into.append(
      chart(
        name,
        c.steps,
        all.map((m) => c.of(m.points, name)),
        runs,
      ),
    );
  }
}

async function episodesPage(run, set) {
  crumbs.replaceChildren(
    h('a', { href: '#/' }, 'runs'),
    ' / ',
    h('a', { href: route('run', run) }, run),
    ` / ${set}`,
  );
  const state = { filter: 'all', sort: 'key', task: '', offset: 0, limit: 50 };
  const table = h('div');
  const showGroup = (e, taskId) => {
    e.stopPropagation();
    state.task = taskId;
    state.offset = 0;
    task.value = taskId;
    load();
  };
  const load = async () => {
    const page = await api('episodes', { run, set, ...state });
    const cols = [
      'task',
      'sample',
      'reward',
      'termination',
      'turns',
      'completionTokens',
      'episodeMs',
      'llmMs',
      'sandboxMs',
      'gradeMs',
    ];
    table.replaceChildren(
      h(
        'p',
        { class: 'meta' },
        `${page.total} episodes; ${state.offset + 1}–${state.offset + page.rows.length}`,
      ),
      h(
        'table',
        {},
        h(
          'tr',
          {},
          cols.map((c) => h('th', {}, c)),
        ),
        page.rows.map((r) =>
          h(
            'tr',
            { class: 'link', onclick: () => (location.hash = route('trajectory', run, set, r.key)) },
            cols.map((c) =>
              h(
                'td',
                c === 'task'
                  ? {
                      class: 'group',
                      title: "this task's group of samples",
                      onclick: (e) => showGroup(e, r.task),
                    }
                  : { class: c === 'reward' ? (r.reward === 1 ? 'pass' : r.reward === 0 ? 'fail' : '') : '' },
                r[c] ?? 'masked',
              ),
            ),
          ),
        ),
      ),
      h(
        'div',
        { class: 'controls' },
        h(
          'button',
          {
            onclick: () => {
              state.offset = Math.max(0, state.offset - state.limit);
              load();
            },
          },
          '‹ prev',
        ),
        h(
          'button',
          {
            onclick: () => {
              if (state.offset + state.limit < page.total) {
                state.offset += state.limit;
                load();
              }
            },
          },
          'next ›',
        ),
      ),
    );
  };
  const select = (key, options) =>
    h(
      'select',
      {
        onchange: (e) => {
          state[key] = e.target.value;
          state.offset = 0;
          load();
        },
      },
      options.map((o) => h('option', { value: o }, o)),
    );
  const task = h('input', {
    placeholder: 'task id',
    onchange: (e) => {
      state.task = e.target.value;
      state.offset = 0;
      load();
    },
  });
  main.replaceChildren(
    h(
      'div',
      { class: 'controls' },
      'show',
      select('filter', ['all', 'failed', 'errored', 'resolved']),
      'order',
      select('sort', ['key', 'turns', 'time']),
      task,
    ),
    table,
  );
  await load();
}

function diffView(patch) {
  return h(
    'pre',
    {},
    patch
      .split('\n')
      .map((line) =>
        h(
          'span',
          { class: line.startsWith('+') ? 'diff-add' : line.startsWith('-') ? 'diff-del' : '' },
          `${line}\n`,
        ),
      ),
  );
}

function testsView(grade) {
  if (!grade || typeof grade !== 'object') return h('p', {}, 'not graded');
  const rows = [];
  for (const [label, o] of [
    ['FAIL_TO_PASS', grade.f2p],
    ['PASS_TO_PASS', grade.p2p],
  ]) {
    for (const t of o?.passed ?? [])
      rows.push(h('tr', {}, h('td', {}, label), h('td', {}, t), h('td', { class: 'pass' }, 'passed')));
    for (const t of o?.failed ?? [])
      rows.push(h('tr', {}, h('td', {}, label), h('td', {}, t), h('td', { class: 'fail' }, 'failed')));
  }
  return h(
    'div',
    {},
    h('p', {}, `${grade.status}: ${grade.reason ?? ''}`),
    h(
      'table',
      { class: 'tests' },
      h('tr', {}, h('th', {}, 'set'), h('th', {}, 'test'), h('th', {}, 'status')),
      rows,
    ),
  );
}

async function trajectoryPage(run, set, key) {
  crumbs.replaceChildren(
    h('a', { href: '#/' }, 'runs'),
    ' / ',
    h('a', { href: route('run', run) }, run),
    ' / ',
    h('a', { href: route('episodes', run, set) }, set),
    ` / ${key}`,
  );
  const t = await api('trajectory', { run, set, key });
  let turn = 0;
  const messages = t.messages.map((m) => {
    const info = m.role === 'assistant' ? t.turns[turn++] : undefined;
    const body = h('pre', {}, m.content);
    const block = h(
      'div',
      { class: `turn role-${m.role}` },
      h(
        'div',
        { class: 'meta' },
        m.role,
        m.name ? ` (${m.name})` : '',
        info
          ? ` · ${info.usage.completionTokens} completion / ${info.usage.promptTokens} prompt tokens · ${Math.round(info.llmMs)} ms LLM, ${Math.round(info.sandboxMs)} ms sandbox`
          : '',
        info?.meanLogprob != null ? ` · mean logprob ${info.meanLogprob.toFixed(3)}` : '',
      ),
      m.reasoning_content
        ? h('details', {}, h('summary', {}, 'reasoning'), h('pre', {}, m.reasoning_content))
        : '',
      m.role === 'tool' || m.role === 'system'
        ? h(
            'details',
            {},
            // truncate-observation.ts's marker: the model saw only the head and tail of this output.
            m.content.includes('\n<response clipped: ')
              ? h('summary', { class: 'clipped' }, `${m.content.length} chars, truncated`)
              : h('summary', {}, `${m.content.length} chars`),
            body,
          )
        : body,
      (m.tool_calls ?? []).map((c) =>
        h(
          'pre',
          { class: 'call' },
          `→ ${c.function?.name ?? c.name}(${c.function?.arguments ?? c.arguments ?? ''})`,
        ),
      ),
    );
    return block;
  });
  main.replaceChildren(
    h(
      'p',
      {},
      `task ${t.taskId} · sample ${t.sample} · policy ${t.policy} · ${t.termination}${t.detail ? ` (${t.detail})` : ''} · reward ${t.reward ?? 'masked'} · ${Math.round(t.timing.episodeMs)} ms`,
    ),
    h('h2', {}, 'tests'),
    testsView(t.grade),
    h('h2', {}, 'diff'),
    t.patch ? diffView(t.patch) : h('p', {}, 'empty'),
    h('h2', {}, 'conversation'),
    ...messages,
  );
}

window.addEventListener('hashchange', render);
render();
