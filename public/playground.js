// skim playground: plain browser JavaScript, no build step. Talks to the same server's
// GET /examples, GET /v1/info and POST /v1/prune (with explain: true for the score gutter).
'use strict';

/** The goal hint each bundled example comes with (an example without one starts with an empty goal). */
const SUGGESTED_QUESTIONS = {
  'logging.py': 'caplog.get_records() is frozen after caplog.clear() is called: where are the records replaced instead of cleared?',
  'playground-http_session.py': 'How does the session pick the proxy for a URL?',
  'playground-rate_limiter.ts': 'How is the wait time computed when a client has run out of tokens, and what does the middleware answer then?',
  'playground-lru_cache.go': 'How does Set make room for a new value when the cache is full?',
};

const $ = (id) => document.getElementById(id);

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function showError(message) {
  const box = $('error');
  box.textContent = message;
  box.hidden = !message;
}

async function getJson(url, init) {
  const res = await fetch(url, init);
  let body = null;
  try {
    body = await res.json();
  } catch {
    /* not JSON */
  }
  if (!res.ok) throw new Error((body && body.error && body.error.message) || `${res.status} ${res.statusText}`);
  return body;
}

/**
 * The example shown ('' = the visitor's own code). Each example brings its code, file name and
 * goal hint; what the visitor typed on their own code is put aside while they look at an example
 * and comes back when they pick "(paste your own)" again.
 */
let shownExample = '';
const ownInput = { code: '', path: '', query: '' };
let loading = 0; // the latest example request: an older answer arriving late is dropped

function setInput({ code, path, query }) {
  $('code').value = code;
  $('path').value = path;
  $('query').value = query;
}

async function showExample(name) {
  const ticket = ++loading;
  if (shownExample === '') Object.assign(ownInput, { code: $('code').value, path: $('path').value, query: $('query').value });
  if (!name) {
    shownExample = '';
    setInput(ownInput);
    showError('');
    return;
  }
  try {
    const res = await fetch(`examples/${encodeURIComponent(name)}`);
    if (!res.ok) throw new Error(`${res.status} ${res.statusText}`);
    const code = await res.text();
    if (ticket !== loading) return;
    shownExample = name;
    setInput({ code, path: name.replace(/^playground-/, ''), query: SUGGESTED_QUESTIONS[name] ?? '' });
    showError('');
  } catch (err) {
    if (ticket !== loading) return;
    $('example').value = shownExample;
    showError(`Could not load ${name}: ${err.message}`);
  }
}

async function loadExamples() {
  const select = $('example');
  try {
    const { examples } = await getJson('examples');
    for (const ex of examples) {
      const opt = el('option', '', ex.name.replace(/^playground-/, ''));
      opt.value = ex.name;
      select.appendChild(opt);
    }
  } catch (err) {
    showError(`Could not list the examples: ${err.message}`);
  }
  select.addEventListener('change', () => showExample(select.value));
  // Editing an example's code makes it the visitor's own (kept when they look at another example).
  $('code').addEventListener('input', () => {
    if (shownExample === '') return;
    shownExample = '';
    select.value = '';
  });
}

async function loadVersion() {
  try {
    const info = await getJson('v1/info');
    $('version').textContent = `v${info.version} · ${info.model}`;
  } catch {
    /* the page works without it */
  }
}

function selectedMode() {
  const checked = document.querySelector('input[name=mode]:checked');
  return checked ? checked.value : 'adaptive';
}

async function run() {
  const code = $('code').value;
  if (!code.trim()) {
    showError('Paste some code or pick an example first.');
    return;
  }
  const request = { code, query: $('query').value, explain: true };
  const path = $('path').value.trim();
  if (path) request.path = path;
  const mode = selectedMode();
  // Adaptive: one read on its own, at the calibrated threshold. (The default mode's read policy
  // judges a read by the agent run it belongs to, its session, which a playground read has not.)
  if (mode !== 'adaptive') request.ratio = Number(mode);
  else request.relativeThreshold = 0.5;

  const button = $('run');
  button.disabled = true;
  button.textContent = 'Skimming…';
  showError('');
  try {
    const result = await getJson('v1/prune', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request),
    });
    render(code, result);
  } catch (err) {
    showError(`Pruning failed: ${err.message}`);
  } finally {
    button.disabled = false;
    button.textContent = 'Skim';
  }
}

function inputLines(code) {
  const lines = code.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines.map((l) => l.replace(/\r$/, ''));
}

function render(code, r) {
  const lines = inputLines(code);
  const mask = r.keepMask && r.keepMask.length === lines.length ? r.keepMask : lines.map(() => 1);
  const explain = new Map((r.explain || []).map((e) => [e.line, e]));
  const scale = explain.size > 0 ? scoreScale(r) : null;
  const keptCount = mask.reduce((a, b) => a + b, 0);

  $('stats').hidden = false;
  $('tokens').textContent = `${r.tokensIn.toLocaleString('en-US')} → ${r.tokensOut.toLocaleString('en-US')}`;
  $('ratio').textContent = r.tokensOut > 0 ? `${(r.tokensIn / r.tokensOut).toFixed(1)}x` : '—';
  $('lines').textContent = `${keptCount} / ${lines.length}`;
  $('score').textContent = typeof r.score === 'number' ? r.score.toFixed(2) : '—';
  $('language').textContent = r.language;
  $('ms').textContent = `${Math.round(r.ms)} ms`;

  const notes = [...(r.warnings || [])];
  if (r.error) notes.push(r.error);
  const warnings = $('warnings');
  warnings.replaceChildren(...notes.map((w) => el('li', '', w)));
  warnings.hidden = notes.length === 0;

  const legend = $('legend');
  if (scale) {
    legend.replaceChildren(el('span', '', `Bar = keep score, log scale (a quarter of a bar per 10x): ${scale.legend}.`), el('span', 'sw'));
    legend.appendChild(document.createTextNode('kept by repair (header, import, closer, …) · click a blue marker to show the lines it hides'));
  } else {
    legend.textContent = 'No per-line scores: the input came back whole.';
  }

  const view = $('view');
  const frag = document.createDocumentFragment();
  let i = 0;
  while (i < lines.length) {
    if (mask[i]) {
      frag.appendChild(lineRow(i + 1, lines[i], true, explain.get(i + 1), scale));
      i++;
      continue;
    }
    let j = i;
    while (j < lines.length && !mask[j]) j++;
    frag.appendChild(omittedRun(i + 1, j, lines, explain, scale));
    i = j;
  }
  view.replaceChildren(frag);

  $('agentText').textContent = r.text;
  $('viewSwitch').hidden = false;
  applyView();
}

/**
 * Keep scores span many decades (the learned model multiplies by the document score; its calibrated
 * threshold is about 0.0025), so bars are drawn on a log scale, a quarter of a bar per decade: in
 * threshold mode τ fills half a bar, 100x τ a whole one and τ/100 none; in budget mode the file's
 * best line fills the bar. `tip` says where one score stands, for the gutter's tooltip.
 */
function scoreScale(r) {
  if (typeof r.threshold === 'number' && r.threshold > 0) {
    const t = preciseLabel(r.threshold);
    return {
      ref: r.threshold,
      at: 0.5,
      legend: `half a bar = the threshold ${t} (lines under it are left out unless repair needs them), a full bar = 100x it, an empty one = 1/100 of it`,
      tip: (score) => `${score >= r.threshold ? 'at or above' : 'below'} the threshold ${t}`,
    };
  }
  const best = (r.explain || []).reduce((m, e) => Math.max(m, e.score), 0);
  const b = preciseLabel(best);
  return {
    ref: best > 0 ? best : 1,
    at: 1,
    legend: `a full bar = the best line of this file (${b}), an empty one = 1/10,000 of it (budget mode keeps the best-ranked lines that fit, whatever their score)`,
    tip: () => `the best line scores ${b} (budget mode, no threshold)`,
  };
}

function barWidth(score, scale) {
  if (!(score > 0)) return 0;
  return Math.max(0, Math.min(1, scale.at + Math.log10(score / scale.ref) / 4));
}

/** 0.42, or 3e-3 for scores under 0.01 (two decimals would print 0.00 for most lines). */
function scoreLabel(s) {
  if (s === 0) return '0';
  return s >= 0.01 ? s.toFixed(2) : s.toExponential(0);
}

/** The same with three significant digits (1.54e-3), for the threshold and tooltips. */
function preciseLabel(s) {
  if (s === 0) return '0';
  return s >= 0.01 ? s.toFixed(2) : s.toExponential(2);
}

function lineRow(no, text, kept, ex, scale) {
  const row = el('div', `line ${kept ? 'kept' : 'omitted'}`);
  row.dataset.line = String(no);
  if (ex && ex.reason && ex.reason.startsWith('repair')) row.classList.add('repair');
  const gutter = el('span', 'gutter');
  gutter.appendChild(el('span', 'no', String(no)));
  const bar = el('span', 'bar');
  const fill = el('i');
  const score = ex ? ex.score : null;
  fill.style.width = score === null ? '0' : `${Math.round(barWidth(score, scale) * 100)}%`;
  bar.appendChild(fill);
  gutter.appendChild(bar);
  gutter.appendChild(el('span', 'val', score === null ? '' : scoreLabel(score)));
  gutter.title = ex
    ? `keep score ${preciseLabel(score)}, ${scale.tip(score)}${ex.reason ? ` · kept: ${ex.reason}` : ''}`
    : 'no score (input returned whole)';
  row.appendChild(gutter);
  row.appendChild(el('span', 'code', text === '' ? ' ' : text));
  return row;
}

/** One collapsed marker for lines first..last (1-based, inclusive); click to expand. */
function omittedRun(first, last, lines, explain, scale) {
  const wrap = el('div', 'omitted-run');
  const count = last - first + 1;
  const label = `… ${count} ${count === 1 ? 'line' : 'lines'} omitted (${first}-${last})`;
  const marker = el('button', 'marker');
  marker.type = 'button';
  marker.appendChild(el('span', 'text', label));
  const hint = el('span', 'hint', 'show');
  marker.appendChild(hint);
  const block = el('div', 'omitted-block');
  block.hidden = true;
  marker.addEventListener('click', () => {
    if (block.childElementCount === 0) {
      for (let n = first; n <= last; n++) block.appendChild(lineRow(n, lines[n - 1], false, explain.get(n), scale));
    }
    block.hidden = !block.hidden;
    hint.textContent = block.hidden ? 'show' : 'hide';
    marker.setAttribute('aria-expanded', String(!block.hidden));
  });
  marker.setAttribute('aria-expanded', 'false');
  wrap.appendChild(marker);
  wrap.appendChild(block);
  return wrap;
}

function applyView() {
  const checked = document.querySelector('input[name=view]:checked');
  const asText = checked && checked.value === 'text';
  $('view').hidden = asText;
  $('agentText').hidden = !asText;
  $('legend').hidden = asText || $('viewSwitch').hidden;
}

document.addEventListener('DOMContentLoaded', () => {
  $('run').addEventListener('click', run);
  $('query').addEventListener('keydown', (e) => {
    if (e.key === 'Enter') run();
  });
  $('code').addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) run();
  });
  for (const radio of document.querySelectorAll('input[name=view]')) radio.addEventListener('change', applyView);
  loadExamples();
  loadVersion();
});
