// The status page: renders /api/status, follows /api/events (Server-Sent
// Events: "state" and "log"), triggers manual LiveUpdates. No framework, no
// network beyond this server.
'use strict';

const token = document.querySelector('meta[name="lu-token"]').content;
const stateNames = {
  'in-sync': 'in sync', updating: 'updating', waiting: 'waiting', failed: 'failed',
  'needs-rebuild': 'needs rebuild', rejected: 'rejected',
};
const maxLogLines = 500;
let selected = null;
let lastSeq = 0;

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (v !== false && v !== undefined && v !== null) e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) if (c) e.append(c);
  return e;
}

// RFC 3339 with microseconds, as the daemon writes times.
function timeCell(iso) {
  if (!iso) return el('span', { text: '—' });
  const d = new Date(iso.replace(/(\.\d{3})\d+/, '$1'));
  return el('time', { datetime: iso, title: iso, text: isNaN(d) ? iso : d.toLocaleTimeString() });
}

// Open sync-back conflicts: nothing is overwritten until one side is edited to agree.
function conflictsList(row) {
  const conflicts = row.syncBackConflicts || [];
  if (conflicts.length === 0) return null;
  const list = el('ul', { class: 'conflicts', 'aria-label': 'Sync-back conflicts' });
  for (const c of conflicts) {
    list.append(el('li', { text: `conflict: ${c.localPath} ↔ ${c.path} in ${c.container} (${c.kind})` }));
  }
  return list;
}

function stateCell(row) {
  const name = stateNames[row.state] || row.state;
  const badge = el('span', { class: `state state-${row.state}`, text: name });
  const why = [row.reason, row.message].filter(Boolean).join(': ');
  return el('td', { 'data-label': 'State' }, badge, why ? el('span', { class: 'why', text: why }) : null,
    conflictsList(row));
}

function filesCell(row) {
  const td = el('td', { 'data-label': 'Last files synced' });
  if (!row.lastFiles || row.lastFiles.length === 0) {
    td.append(el('span', { text: '—' }));
    return td;
  }
  const list = el('ul', { class: 'files' });
  for (const f of row.lastFiles.slice(0, 5)) list.append(el('li', { text: f }));
  const more = (row.lastFileCount || row.lastFiles.length) - Math.min(5, row.lastFiles.length);
  if (more > 0) list.append(el('li', { text: `and ${more} more` }));
  td.append(list, timeCell(row.lastFilesAt));
  return td;
}

// The last updates as Tilt shows build durations: a bar per update (its
// height the milliseconds, red when it failed), a dot per update for its
// files (their own scale). Drawn here: the page needs nothing from elsewhere.
// The SVG namespace, as the page's template holds it (no address in the code).
const chartTemplate = document.getElementById('updates-chart').content.firstElementChild;
const svgNs = chartTemplate.namespaceURI;
const chart = { width: 150, height: 36, bars: 50 };

function svg(tag, attrs = {}, ...children) {
  const e = document.createElementNS(svgNs, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) if (c) e.append(c);
  return e;
}

function updatesCell(row) {
  const td = el('td', { 'data-label': 'Recent updates' });
  const updates = row.recentUpdates || [];
  if (updates.length === 0) {
    td.append(el('span', { text: '—' }));
    return td;
  }
  const maxMs = Math.max(...updates.map((u) => u.ms), 0.1);
  const maxFiles = Math.max(...updates.map((u) => u.files), 1);
  const pitch = chart.width / chart.bars;
  const top = chart.height - 2;
  const last = updates[updates.length - 1];
  const picture = chartTemplate.cloneNode(false);
  for (const [k, v] of Object.entries({
    width: chart.width, height: chart.height, viewBox: `0 0 ${chart.width} ${chart.height}`,
    'aria-label': `last ${updates.length} updates: the latest took ${last.ms} ms for ${last.files} files, the longest ${maxMs} ms`,
  })) picture.setAttribute(k, v);
  updates.forEach((u, i) => {
    const h = Math.max(1, (u.ms / maxMs) * top);
    const title = svg('title');
    title.textContent = `${u.ms} ms, ${u.files} file${u.files === 1 ? '' : 's'}${u.failed ? ', failed' : ''} (${u.at})`;
    picture.append(svg('rect', {
      class: u.failed ? 'bar failed' : 'bar', x: (i * pitch).toFixed(2), y: (chart.height - h).toFixed(2),
      width: Math.max(1, pitch - 1).toFixed(2), height: h.toFixed(2), 'data-ms': u.ms, 'data-files': u.files,
    }, title));
  });
  updates.forEach((u, i) => {
    picture.append(svg('circle', {
      class: 'files-point', cx: (i * pitch + pitch / 2).toFixed(2), cy: (chart.height - 1 - (u.files / maxFiles) * top).toFixed(2),
      r: 1.3, 'data-files': u.files,
    }));
  });
  td.append(picture, el('span', { class: 'chart-legend', text: `${last.ms} ms · ${last.files} file${last.files === 1 ? '' : 's'}` }));
  return td;
}

async function trigger(name, button) {
  button.disabled = true;
  const result = document.getElementById('trigger-result');
  try {
    const r = await fetch(`/api/liveupdates/${encodeURIComponent(name)}/trigger`, {
      method: 'POST', headers: { 'X-LU-Token': token },
    });
    const body = await r.json();
    result.textContent = r.ok ? `${name}: triggered` : `${name}: ${body.error}`;
  } catch (e) {
    result.textContent = `${name}: ${e}`;
  } finally {
    button.disabled = false;
  }
}

function renderLiveUpdates(rows) {
  const tbody = document.querySelector('#live-updates tbody');
  const focused = document.activeElement && document.activeElement.dataset.focusKey;
  tbody.replaceChildren();
  document.getElementById('no-live-updates').hidden = rows.length > 0;
  if (!selected && rows.length > 0) select(rows[0].name);
  for (const row of rows) {
    const isSelected = row.name === selected;
    const nameButton = el('button', {
      type: 'button', class: 'select', 'aria-pressed': String(isSelected), 'data-focus-key': `select:${row.name}`,
      'aria-label': `Show the log of ${row.name}`, text: row.name, onclick: () => select(row.name),
    });
    const containers = el('ul', { class: 'containers' });
    for (const c of row.containers || []) {
      // How lu-agent got there (injected, copied, none) and when the process last restarted.
      const item = el('li', { text: c.name || c.id, title: c.id });
      if (c.agent) item.append(el('span', { class: 'agent', 'data-agent': c.agent, text: ` · agent: ${c.agent}` }));
      if (c.lastRestartTime) item.append(el('span', { class: 'restarted', text: ' · restarted ' }, timeCell(c.lastRestartTime)));
      containers.append(item);
    }
    const mode = el('td', { 'data-label': 'Mode' }, el('span', { text: row.mode }));
    if (row.canTrigger) {
      const button = el('button', {
        type: 'button', class: 'trigger', 'data-focus-key': `trigger:${row.name}`,
        'aria-label': `Trigger ${row.name}`, text: 'Trigger',
      });
      button.addEventListener('click', () => trigger(row.name, button));
      mode.append(button);
    }
    tbody.append(el('tr', { 'data-name': row.name, 'data-state': row.state, class: isSelected ? 'selected' : '' },
      el('th', { scope: 'row', 'data-label': 'Name' }, nameButton),
      el('td', { 'data-label': 'Namespace', text: row.namespace || '—' }),
      stateCell(row),
      el('td', { 'data-label': 'Containers' }, (row.containers || []).length ? containers : el('span', { text: '—' })),
      filesCell(row),
      el('td', { 'data-label': 'Last update' }, timeCell(row.lastUpdateAt)),
      updatesCell(row),
      mode));
  }
  if (focused) {
    const again = tbody.querySelector(`[data-focus-key="${CSS.escape(focused)}"]`);
    if (again) again.focus();
  }
}

function renderPlugins(plugins) {
  const tbody = document.querySelector('#plugins tbody');
  tbody.replaceChildren();
  for (const p of plugins) {
    tbody.append(el('tr', {},
      el('td', { 'data-label': 'Kind', text: p.kind || '' }),
      el('th', { scope: 'row', 'data-label': 'Name', text: p.name || '' }),
      el('td', { 'data-label': 'Version', text: p.version || '' }),
      el('td', { 'data-label': 'Classes', text: (p.classes || []).join(', ') || '—' }),
      el('td', { 'data-label': 'Reloads', text: String(p.reloads ?? 0) }),
      el('td', { 'data-label': 'Last reload refused', class: p.lastError ? 'refused' : '', text: p.lastError || '—' })));
  }
}

function render(state) {
  renderLiveUpdates(state.liveUpdates || []);
  renderPlugins(state.plugins || []);
}

function appendLog(line) {
  const log = document.getElementById('log');
  if (line.seq <= lastSeq) return;
  lastSeq = line.seq;
  const follow = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
  log.append(el('span', { class: `line level-${line.level}` },
    el('time', { datetime: line.time, text: line.time.slice(11, 23) }), ` ${line.text}\n`));
  while (log.childElementCount > maxLogLines) log.firstElementChild.remove();
  if (follow) log.scrollTop = log.scrollHeight;
}

async function select(name) {
  selected = name;
  lastSeq = 0;
  document.getElementById('log-name').textContent = `of ${name}`;
  document.getElementById('log').replaceChildren();
  for (const b of document.querySelectorAll('button.select')) b.setAttribute('aria-pressed', String(b.textContent === name));
  for (const tr of document.querySelectorAll('#live-updates tbody tr')) tr.classList.toggle('selected', tr.dataset.name === name);
  const r = await fetch(`/api/liveupdates/${encodeURIComponent(name)}/log`);
  if (!r.ok || selected !== name) return;
  for (const line of (await r.json()).lines) appendLog(line);
}

function connect() {
  const status = document.getElementById('connection');
  const events = new EventSource('/api/events');
  events.addEventListener('open', () => { status.textContent = 'live'; });
  events.addEventListener('error', () => { status.textContent = 'reconnecting…'; });
  events.addEventListener('state', (e) => render(JSON.parse(e.data)));
  events.addEventListener('log', (e) => {
    const line = JSON.parse(e.data);
    if (line.liveUpdate === selected) appendLog(line);
  });
}

fetch('/api/status').then((r) => r.json()).then(render).finally(connect);
