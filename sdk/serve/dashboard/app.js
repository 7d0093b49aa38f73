// trainpkg serve's dashboard: plain DOM and hand-written SVG, no libraries
// (docs/adr/2026-11-28-dashboard.md). Text from jobs is only ever set as
// textContent, never parsed as HTML.
'use strict';

const TERMINAL = new Set(['SUCCEEDED', 'FAILED', 'CANCELLED', 'EXPIRED', 'PARTIALLY_SUCCEEDED']);
let timers = [];
let streams = [];

function stopAll() {
  timers.forEach(clearInterval);
  timers = [];
  streams.forEach((s) => s.close());
  streams = [];
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

// node.replaceChildren without the nulls and falses of conditional parts.
function put(node, ...children) {
  node.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
}

function svg(tag, attrs, ...children) {
  const node = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
  for (const c of children.flat()) {
    if (c !== undefined && c !== null) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

async function api(path, options) {
  const res = await fetch(path, Object.assign({ credentials: 'same-origin', cache: 'no-store' }, options || {}));
  let body = null;
  try { body = await res.json(); } catch (e) { body = null; }
  if (!res.ok) {
    const message = body && body.error ? body.error.message : 'HTTP ' + res.status;
    throw new Error(message);
  }
  return body;
}

function shortState(state) { return (state || 'JOB_STATE_UNSPECIFIED').replace(/^(JOB_STATE_|ACTIVE$)/, ''); }
function badge(state) { const s = shortState(state); return el('span', { class: 'state ' + s, 'data-state': s }, s); }

function parseTime(text) { return text ? Date.parse(text) : NaN; }
function fmtTime(text) {
  const t = parseTime(text);
  if (isNaN(t)) return '–';
  const d = new Date(t);
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}
function fmtSeconds(s) {
  if (!isFinite(s) || s < 0) return '–';
  if (s < 60) return s.toFixed(1) + 's';
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${Math.round(s - m * 60)}s`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}
function duration(start, end) {
  const a = parseTime(start);
  if (isNaN(a)) return '–';
  const b = isNaN(parseTime(end)) ? Date.now() : parseTime(end);
  return fmtSeconds((b - a) / 1000);
}
function fmtNum(v) {
  if (typeof v !== 'number' || !isFinite(v)) return String(v);
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e5)) return v.toExponential(3);
  return String(Number(v.toPrecision(4)));
}

function showError(where, err) {
  where.replaceChildren(el('p', { class: 'error', role: 'alert' }, String(err.message || err)));
}

// ---- charts ---------------------------------------------------------------

function ticks(min, max, n) {
  if (min === max) { min -= 1; max += 1; }
  const raw = (max - min) / n;
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) || raw;
  const out = [];
  for (let v = Math.ceil(min / step) * step; v <= max + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

// series: [{name, points: [[x, y], ...], line: bool}]; options: {xLabel, logX, best: [x, y]}
function chart(title, series, options) {
  options = options || {};
  const W = 480, H = 270, L = 66, R = 14, T = 10, B = 42;
  const all = series.flatMap((s) => s.points);
  const fx = options.logX ? (x) => Math.log10(x) : (x) => x;
  let xs = all.map((p) => fx(p[0])), ys = all.map((p) => p[1]);
  let x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = Math.min(...ys), y1 = Math.max(...ys);
  if (x0 === x1) { x0 -= 1; x1 += 1; }
  if (y0 === y1) { y0 -= Math.abs(y0) * 0.1 || 1; y1 += Math.abs(y1) * 0.1 || 1; }
  const pad = (y1 - y0) * 0.05; y0 -= pad; y1 += pad;
  const xpad = (x1 - x0) * 0.03; x0 -= xpad; x1 += xpad;
  const sx = (x) => L + (fx(x) - x0) / (x1 - x0) * (W - L - R);
  const sy = (y) => T + (1 - (y - y0) / (y1 - y0)) * (H - T - B);
  const g = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': title });
  for (const t of ticks(y0, y1, 4)) {
    g.append(svg('line', { class: 'grid', x1: L, x2: W - R, y1: sy(t), y2: sy(t) }));
    g.append(svg('text', { x: L - 4, y: sy(t) + 3, 'text-anchor': 'end' }, fmtNum(t)));
  }
  // A log axis is labelled at powers of ten when it spans any.
  const decades = [];
  for (let k = Math.ceil(x0); k <= Math.floor(x1); k++) decades.push(Math.pow(10, k));
  const xt = !options.logX ? ticks(x0, x1, 5)
    : decades.length >= 2 ? decades : ticks(x0, x1, 4).map((t) => Math.pow(10, t));
  for (const t of xt) {
    if (fx(t) < x0 - 1e-9 || fx(t) > x1 + 1e-9) continue;
    g.append(svg('text', { x: sx(t), y: H - B + 17, 'text-anchor': 'middle' }, fmtNum(t)));
  }
  g.append(svg('line', { class: 'axis', x1: L, x2: L, y1: T, y2: H - B }));
  g.append(svg('line', { class: 'axis', x1: L, x2: W - R, y1: H - B, y2: H - B }));
  if (options.xLabel) g.append(svg('text', { x: (L + W - R) / 2, y: H - 4, 'text-anchor': 'middle' }, options.xLabel));
  series.forEach((s, i) => {
    if (s.line) {
      g.append(svg('polyline', { class: 'series' + i, points: s.points.map((p) => `${sx(p[0]).toFixed(1)},${sy(p[1]).toFixed(1)}`).join(' ') }));
    }
    // Dots only where they stay apart; long curves are lines.
    if (s.dots !== false && s.points.length <= 120) {
      for (const p of s.points) {
        const best = options.best && p[0] === options.best[0] && p[1] === options.best[1];
        g.append(svg('circle', { cx: sx(p[0]), cy: sy(p[1]), r: best ? 5 : 3, class: best ? 'best' : '' },
          svg('title', {}, `${fmtNum(p[0])}: ${fmtNum(p[1])}`)));
      }
    }
  });
  return el('div', { class: 'chart', 'data-tag': title, 'data-points': series[0] ? series[0].points.length : 0 },
    el('h3', {}, title), g,
    series.length > 1 ? el('div', { class: 'legend' }, series.map((s) => s.name).join(' · ')) : null);
}

// ---- jobs -----------------------------------------------------------------

function jobsView(app) {
  const params = new URLSearchParams(location.search);
  let page = Number(params.get('page') || 0);
  const filter = el('input', { type: 'search', placeholder: 'filter, e.g. state=RUNNING AND display_name:digits*', 'aria-label': 'filter', value: params.get('filter') || '' });
  const status = el('span', { class: 'muted', id: 'jobs-status' });
  const prev = el('button', { onclick: () => { page = Math.max(0, page - 1); load(); } }, '‹ Newer');
  const next = el('button', { onclick: () => { page += 1; load(); } }, 'Older ›');
  const body = el('tbody', { id: 'jobs-body' });
  const err = el('div');
  const tuningBody = el('tbody', { id: 'tuning-body' });
  filter.addEventListener('change', () => { page = 0; load(); });
  app.replaceChildren(
    el('h1', {}, 'Jobs'),
    el('div', { class: 'bar' }, filter, prev, next, status), err,
    el('div', { class: 'scroll' }, el('table', { id: 'jobs' },
      el('thead', {}, el('tr', {}, el('th', {}, 'Name'), el('th', {}, 'State'), el('th', {}, 'Backend'),
        el('th', { class: 'hide-narrow' }, 'Created'), el('th', {}, 'Duration'))), body)),
    el('h2', {}, 'Tuning jobs'),
    el('div', { class: 'scroll' }, el('table', { id: 'tuning-jobs' },
      el('thead', {}, el('tr', {}, el('th', {}, 'Name'), el('th', {}, 'State'), el('th', {}, 'Trials'),
        el('th', {}, 'Best trial'), el('th', { class: 'hide-narrow' }, 'Created'))), tuningBody)));

  async function load() {
    const q = new URLSearchParams();
    if (filter.value) q.set('filter', filter.value);
    if (page) q.set('page', page);
    history.replaceState(null, '', '/ui/' + (q.toString() ? '?' + q : ''));
    q.set('pageSize', 50);
    try {
      const data = await api('/ui/api/jobs?' + q);
      err.replaceChildren();
      body.replaceChildren(...data.jobs.map((j) => el('tr', { 'data-job-id': j.id, 'data-state': shortState(j.state) },
        el('td', {}, el('a', { href: '/ui/jobs/' + encodeURIComponent(j.id) }, j.displayName || j.id),
          el('div', { class: 'muted' }, j.id)),
        el('td', {}, badge(j.state)), el('td', {}, j.backend),
        el('td', { class: 'hide-narrow' }, fmtTime(j.createTime)),
        el('td', { class: 'num' }, duration(j.startTime || j.createTime, j.endTime)))));
      const first = data.page * data.pageSize;
      status.textContent = data.total ? `${first + 1}–${first + data.jobs.length} of ${data.total}` : 'no jobs';
      prev.disabled = data.page === 0;
      next.disabled = first + data.jobs.length >= data.total;
      const tuning = await api('/ui/api/tuning');
      tuningBody.replaceChildren(...tuning.tuningJobs.map((t) => el('tr', { 'data-tuning-id': t.id },
        el('td', {}, el('a', { href: '/ui/tuning/' + encodeURIComponent(t.id) }, t.displayName || t.id)),
        el('td', {}, badge(t.state)), el('td', { class: 'num' }, t.trials),
        el('td', {}, t.bestTrialId || '–'), el('td', { class: 'hide-narrow' }, fmtTime(t.createTime)))));
    } catch (e) { showError(err, e); }
  }
  load();
  timers.push(setInterval(load, 2000));
}

// ---- one job --------------------------------------------------------------

function envTable(env) {
  return el('table', { class: 'env' }, el('tbody', {}, Object.entries(env).map(([k, v]) => {
    let text = v;
    try { if (v.startsWith('{')) text = JSON.stringify(JSON.parse(v), null, 2); } catch (e) { text = v; }
    return el('tr', {}, el('td', {}, k), el('td', {}, text));
  })));
}

function logPane(id, replica) {
  const pre = el('pre', { class: 'log', 'data-replica': replica, 'aria-live': 'polite' });
  const state = el('div', { class: 'muted', 'data-log-state': replica }, 'connecting…');
  const source = new EventSource(`/ui/api/jobs/${encodeURIComponent(id)}/logs/${encodeURIComponent(replica)}`);
  streams.push(source);
  source.onopen = () => { state.textContent = 'following'; };
  source.onmessage = (e) => {
    const atEnd = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 4;
    pre.append(el('div', { class: 'line' }, e.data));
    if (atEnd) pre.scrollTop = pre.scrollHeight;
  };
  source.addEventListener('end', (e) => {
    state.textContent = 'job ended: ' + shortState(e.data);
    state.setAttribute('data-ended', shortState(e.data));
    source.close();
  });
  source.onerror = () => { if (source.readyState === EventSource.CLOSED) state.textContent = 'disconnected'; };
  return el('div', { class: 'log-pane', 'data-replica': replica }, state, pre);
}

function jobView(app, id) {
  const head = el('div');
  const replicas = el('tbody', { id: 'replicas-body' });
  const charts = el('div', { class: 'charts', id: 'charts' });
  const chartNote = el('p', { class: 'muted' });
  const logs = el('div', { id: 'logs' });
  const spec = el('pre', { id: 'job-json' });
  const envs = el('div', { id: 'cluster-env' });
  app.replaceChildren(head,
    el('h2', {}, 'Replicas'),
    el('div', { class: 'scroll' }, el('table', { id: 'replicas' }, el('thead', {}, el('tr', {},
      ['Replica', 'State', 'Exit', 'Restarts', 'Host', 'Port', 'PID'].map((h) => el('th', {}, h)))), replicas)),
    el('h2', {}, 'Training curves'), chartNote, charts,
    el('h2', {}, 'Logs'), logs,
    el('details', {}, el('summary', {}, 'CustomJob JSON'), spec),
    el('details', {}, el('summary', {}, 'Cluster environment of each replica'), envs));
  let logsStarted = false;
  let terminal = false;

  async function cancel(button) {
    button.disabled = true;
    try {
      await api(`/ui/api/jobs/${encodeURIComponent(id)}/cancel`, { method: 'POST' });
      load();
    } catch (e) { showError(head.querySelector('.msg'), e); button.disabled = false; }
  }

  async function load() {
    try {
      const d = await api('/ui/api/jobs/' + encodeURIComponent(id));
      const job = d.job;
      const state = shortState(job.state);
      terminal = TERMINAL.has(state);
      const cancelButton = el('button', { class: 'danger', id: 'cancel', disabled: terminal || state === 'CANCELLING',
        onclick: (e) => cancel(e.target) }, 'Cancel job');
      put(head, 
        el('p', {}, el('a', { href: '/ui/' }, '‹ All jobs')),
        el('h1', {}, job.displayName || id, ' ', badge(job.state)),
        el('div', { class: 'bar' }, cancelButton, el('span', { class: 'msg' })),
        el('div', { class: 'meta' },
          el('div', {}, el('span', {}, 'Job id'), d.id),
          el('div', {}, el('span', {}, 'Backend'), d.backend),
          el('div', {}, el('span', {}, 'Created'), fmtTime(job.createTime)),
          el('div', {}, el('span', {}, 'Duration'), duration(job.startTime || job.createTime, job.endTime)),
          job.jobSpec && job.jobSpec.baseOutputDirectory ? el("div", {}, el("span", {}, "Output"), job.jobSpec.baseOutputDirectory.outputUriPrefix) : null),
        job.error ? el('p', { class: 'error' }, job.error.message || JSON.stringify(job.error)) : null);
      replicas.replaceChildren(...d.replicas.map((r) => {
        const [host, port] = (r.address || '').split(/:(?=[0-9]+$)/);
        const rs = r.state === 'EXITED' ? (r.exitCode === 0 && !r.signal ? 'EXITED-0' : 'EXITED-ERR') : r.state;
        return el('tr', { 'data-replica': r.name, 'data-state': r.state },
          el('td', {}, r.name), el('td', {}, el('span', { class: 'state ' + rs }, r.state)),
          el('td', {}, r.state === 'EXITED' ? (r.signal ? 'signal ' + r.signal : 'code ' + r.exitCode) : '–'),
          el('td', { class: 'num' }, r.restarts || 0),
          el('td', {}, host || '–'), el('td', { class: 'num' }, port || '–'), el('td', { class: 'num' }, r.pid || '–'));
      }));
      spec.textContent = JSON.stringify(job, null, 2);
      const env = Object.entries(d.clusterEnv || {});
      envs.replaceChildren(...(env.length ? env.map(([name, vars]) => el('div', {}, el('h3', {}, name), envTable(vars)))
        : [el('p', { class: 'muted' }, 'Not recorded for this job.')]));
      if (!logsStarted && d.logs.length) {
        logsStarted = true;
        const panes = d.logs.map((r) => logPane(id, r));
        const tabs = el('div', { class: 'tabs', role: 'tablist' });
        const show = (i) => {
          panes.forEach((p, j) => { p.hidden = i !== j; });
          [...tabs.children].forEach((b, j) => b.classList.toggle('on', i === j));
        };
        d.logs.forEach((r, i) => tabs.append(el('button', { role: 'tab', onclick: () => show(i) }, r)));
        logs.replaceChildren(tabs, ...panes);
        show(0);
      } else if (!d.logs.length) {
        logs.replaceChildren(el('p', { class: 'muted' }, 'No replica logs (yet).'));
      }
    } catch (e) { showError(head, e); }
  }

  async function loadScalars() {
    try {
      const s = await api(`/ui/api/jobs/${encodeURIComponent(id)}/scalars`);
      const tags = Object.keys(s.scalars).sort();
      charts.replaceChildren(...tags.map((tag) => chart(tag,
        [{ name: tag, points: s.scalars[tag].map((p) => [p[0], p[1]]), line: true }], { xLabel: 'step' })));
      chartNote.textContent = tags.length ? `From ${s.sources.join(', ')}` :
        'No scalars yet: the trainer writes TensorBoard events to AIP_TENSORBOARD_LOG_DIR (a local baseOutputDirectory) or hypertune metrics.';
      if (s.errors && s.errors.length) chartNote.textContent += ' Unreadable: ' + s.errors.join('; ');
    } catch (e) { chartNote.textContent = String(e.message); }
  }
  load();
  loadScalars();
  timers.push(setInterval(() => { if (!terminal) load(); }, 1500));
  let lastScalars = false;  // one more read after the job ends
  timers.push(setInterval(() => {
    if (lastScalars) return;
    lastScalars = terminal;
    loadScalars();
  }, 3000));
}

// ---- tuning job ------------------------------------------------------------

function tuningView(app, id) {
  const head = el('div');
  const table = el('div', { class: 'scroll' });
  const charts = el('div', { class: 'charts', id: 'tuning-charts' });
  app.replaceChildren(head, el('h2', {}, 'Trials'), table, el('h2', {}, 'Objective'), charts);
  let done = false;
  async function load() {
    try {
      const d = await api('/ui/api/tuning/' + encodeURIComponent(id));
      const r = d.results;
      const job = d.job;
      done = TERMINAL.has(shortState(job.state));
      const params = ((job.studySpec || {}).parameters || []).map((p) => p.parameterId);
      const logScale = new Set(((job.studySpec || {}).parameters || []).filter((p) => p.scaleType === 'UNIT_LOG_SCALE').map((p) => p.parameterId));
      const best = r.trials.find((t) => t.id === r.bestTrialId);
      const state = shortState(job.state);
      const message = el('span', { class: 'msg' });
      const cancelButton = el('button', { class: 'danger', id: 'cancel', disabled: done || state === 'CANCELLING',
        onclick: async (e) => {
          e.target.disabled = true;
          try {
            await api(`/ui/api/tuning/${encodeURIComponent(id)}/cancel`, { method: 'POST' });
            load();
          } catch (err) { showError(message, err); e.target.disabled = false; }
        } }, 'Cancel tuning job');
      put(head,
        el('p', {}, el('a', { href: '/ui/' }, '‹ All jobs')),
        el('h1', {}, job.displayName || id, ' ', badge(job.state)),
        el('div', { class: 'bar' }, cancelButton, message),
        el('div', { class: 'meta' },
          el('div', {}, el('span', {}, 'Metric'), `${r.metricId} (${r.goal})`),
          el('div', {}, el('span', {}, 'Trials'), r.trials.length),
          el('div', { id: 'best-trial', 'data-trial-id': r.bestTrialId || '' }, el('span', {}, 'Best trial'),
            best ? `${best.id}: ${r.metricId} = ${fmtNum(best.objective)}` : 'none yet')));
      table.replaceChildren(el('table', { id: 'trials' },
        el('thead', {}, el('tr', {}, el('th', {}, 'Trial'), params.map((p) => el('th', {}, p)),
          el('th', {}, r.metricId), el('th', {}, 'State'), el('th', {}, 'Duration'))),
        el('tbody', {}, r.trials.map((t) => el('tr', { 'data-trial-id': t.id, class: t.id === r.bestTrialId ? 'best' : '' },
          el('td', {}, d.trialJobs[t.id] ? el('a', { href: '/ui/jobs/' + encodeURIComponent(d.trialJobs[t.id]) }, t.id) : t.id),
          params.map((p) => el('td', { class: 'num' }, t.parameters[p] === undefined ? '–' : fmtNum(t.parameters[p]))),
          el('td', { class: 'num', 'data-objective': t.objective === undefined ? '' : t.objective }, t.objective === undefined ? '–' : fmtNum(t.objective)),
          el('td', {}, badge(t.state)),
          el('td', { class: 'num' }, t.durationSeconds === undefined ? '–' : fmtSeconds(t.durationSeconds)))))));
      const scored = r.trials.filter((t) => t.objective !== undefined).sort((a, b) => Number(a.id) - Number(b.id));
      const maximize = r.goal === 'MAXIMIZE';
      let bestSoFar = null;
      const running = scored.map((t) => {
        bestSoFar = bestSoFar === null ? t.objective : (maximize ? Math.max(bestSoFar, t.objective) : Math.min(bestSoFar, t.objective));
        return [Number(t.id), bestSoFar];
      });
      const bestPoint = best ? [Number(best.id), best.objective] : null;
      const list = [];
      if (scored.length) {
        list.push(chart(`${r.metricId} per trial`, [
          { name: r.metricId, points: scored.map((t) => [Number(t.id), t.objective]) },
          { name: 'best so far', points: running, line: true, dots: false }], { xLabel: 'trial', best: bestPoint }));
        for (const p of params) {
          const pts = scored.filter((t) => typeof t.parameters[p] === 'number').map((t) => [t.parameters[p], t.objective]);
          if (!pts.length) continue;
          list.push(chart(`${p} vs ${r.metricId}`, [{ name: p, points: pts }],
            { xLabel: p, logX: logScale.has(p) && pts.every((q) => q[0] > 0), best: best ? [best.parameters[p], best.objective] : null }));
        }
      }
      charts.replaceChildren(...(list.length ? list : [el('p', { class: 'muted' }, 'No trial has an objective yet.')]));
    } catch (e) { showError(head, e); }
  }
  load();
  timers.push(setInterval(() => { if (!done) load(); }, 2000));
}

function route() {
  stopAll();
  const app = document.getElementById('app');
  const path = location.pathname;
  let m;
  if ((m = path.match(/^\/ui\/jobs\/([A-Za-z0-9_]+)$/))) jobView(app, m[1]);
  else if ((m = path.match(/^\/ui\/tuning\/([A-Za-z0-9_]+)$/))) tuningView(app, m[1]);
  else jobsView(app);
}

document.addEventListener('DOMContentLoaded', route);
