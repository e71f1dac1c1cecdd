// views/sessions.js: live sessions (provisional energy and power, updated in place when the
// stream says sessions changed) and completed ones (final energy, duration, stop reason,
// quality flags), each paged by the API's cursor.
import { h, replace, errorBox, table } from '../dom.js';
import { get, enc, query } from '../api.js';
import { kwh, kw, durationText, timeText, ageText } from '../format.js';

const LIVE_LIMIT = 100;
const POWER_LOOKUPS = 20;  // open sessions whose latest power reading is fetched (one request each)

export function sessionStatusChip(s) {
  const label = s.is_open ? 'in progress' : (s.session_status || '').toLowerCase().replace(/_/g, ' ');
  const cls = s.is_open ? 'in-progress' : s.session_status === 'COMPLETED' ? 'completed' : 'warn';
  return h('span', { class: `chip ${cls}` }, label || '—');
}

export function flagChips(flags) {
  return (flags || []).length ? flags.map((f) => h('span', { class: 'chip flag' }, f)) : h('span', { class: 'muted' }, 'none');
}

// Latest power reading of a session (W) from its events.
async function latestPower(sessionId) {
  const detail = await get(`/api/v1/sessions/${enc(sessionId)}`);
  const withPower = (detail.events || []).filter((e) => e.power_w !== null && e.power_w !== undefined);
  return withPower.length ? withPower[withPower.length - 1].power_w : null;
}

export function mount(main) {
  let disposed = false;
  const liveHolder = h('div', { id: 'live-sessions' });
  const doneHolder = h('div', { id: 'completed-sessions' });
  const donePager = h('div', { class: 'pager' });
  const errorHolder = h('div');
  const statusSelect = h('select', { id: 'sessions-status', 'aria-label': 'Status of past sessions' },
    ['COMPLETED', 'TIMED_OUT', 'START_MISSING'].map((s) => h('option', { value: s }, s.toLowerCase().replace(/_/g, ' '))));
  const cpInput = h('input', { id: 'sessions-cp', type: 'search', placeholder: 'charge point id (exact)', 'aria-label': 'Charge point id' });
  const dayInput = h('input', { id: 'sessions-day', type: 'date', 'aria-label': 'Day the session started' });
  let doneCursors = [null];
  let doneNext = null;
  const power = new Map();  // session_id -> W

  replace(main, h('h1', {}, 'Sessions'), errorHolder,
    h('section', { 'aria-labelledby': 'live-title' }, h('h2', { id: 'live-title' }, 'Live sessions'), liveHolder),
    h('section', { 'aria-labelledby': 'done-title' }, h('h2', { id: 'done-title' }, 'Past sessions'),
      h('div', { class: 'toolbar' }, h('label', {}, 'Status', statusSelect), h('label', {}, 'Charge point', cpInput),
        h('label', {}, 'Started on', dayInput)), doneHolder, donePager));

  // Live rows are updated cell by cell (not rebuilt), so the table does not jump while watched.
  const liveRows = new Map();  // session_id -> {tr, cells}
  let liveTbody = null;
  function liveCells(s) {
    return {
      energy: `${kwh(s.energy_kwh)}${s.energy_is_final ? '' : ' (provisional)'}`,
      power: kw(power.get(s.session_id)),
      duration: durationText((Date.now() - Date.parse(s.start_ts)) / 1000),
      last: ageText(s.last_event_ts),
    };
  }
  function renderLive(items) {
    if (!liveTbody || !liveHolder.contains(liveTbody)) {
      liveTbody = h('tbody', {});
      liveRows.clear();
      replace(liveHolder, h('div', { class: 'table-wrap' }, h('table', { 'aria-label': 'Live sessions' },
        h('thead', {}, h('tr', {}, ['Session', 'Charge point', 'Connector', 'Started', 'Energy', 'Power', 'Duration', 'Last reading']
          .map((c, i) => h('th', { scope: 'col', class: i >= 4 && i <= 5 ? 'num' : null }, c)))), liveTbody)),
      h('p', { class: 'muted', id: 'live-count' }));
    }
    const seen = new Set();
    for (const s of items) {
      seen.add(s.session_id);
      const values = liveCells(s);
      let row = liveRows.get(s.session_id);
      if (!row) {
        const cells = { energy: h('td', { class: 'num energy' }), power: h('td', { class: 'num power' }),
          duration: h('td', { class: 'duration' }), last: h('td', { class: 'last' }) };
        const tr = h('tr', { dataset: { session: s.session_id } },
          h('td', {}, h('a', { href: `#/session/${enc(s.session_id)}` }, s.transaction_id || s.session_id.slice(0, 8))),
          h('td', {}, h('a', { href: `#/cp/${enc(s.charge_point_id)}` }, s.charge_point_id)),
          h('td', {}, s.connector_id ?? '—'), h('td', {}, timeText(s.start_ts)),
          cells.energy, cells.power, cells.duration, cells.last);
        row = { tr, cells };
        liveRows.set(s.session_id, row);
      }
      liveTbody.append(row.tr);  // keeps the API's order (newest first)
      for (const [k, v] of Object.entries(values)) {
        if (row.cells[k].textContent !== v) {
          row.cells[k].textContent = v;
          if (k === 'energy' || k === 'power') { row.cells[k].classList.remove('updated'); void row.cells[k].offsetWidth; row.cells[k].classList.add('updated'); }
        }
      }
    }
    for (const [sid, row] of liveRows) if (!seen.has(sid)) { row.tr.remove(); liveRows.delete(sid); }
    const count = liveHolder.querySelector('#live-count');
    count.textContent = items.length ? `${items.length}${items.length >= LIVE_LIMIT ? '+' : ''} in progress` : 'No session in progress.';
  }

  let liveLoading = false, liveAgain = false;
  async function loadLive() {
    if (liveLoading) { liveAgain = true; return; }
    liveLoading = true;
    try {
      const page = await get(`/api/v1/sessions${query({ open: 'true', limit: LIVE_LIMIT })}`);
      if (disposed) return;
      renderLive(page.items);
      // Power is only in a session's events: look up the first few, then update their cells.
      await Promise.all(page.items.slice(0, POWER_LOOKUPS).map(async (s) => {
        try { power.set(s.session_id, await latestPower(s.session_id)); } catch { /* ended meanwhile */ }
      }));
      if (!disposed) renderLive(page.items);
      replace(errorHolder);
    } catch (e) {
      if (!disposed) replace(errorHolder, errorBox(`Could not load sessions: ${e.message}`));
    } finally {
      liveLoading = false;
      if (liveAgain && !disposed) { liveAgain = false; loadLive(); }
    }
  }

  async function loadDone() {
    const cursor = doneCursors[doneCursors.length - 1];
    try {
      const page = await get(`/api/v1/sessions${query({ status: statusSelect.value, open: 'false',
        charge_point_id: cpInput.value.trim(), day: dayInput.value, limit: 25, cursor })}`);
      if (disposed) return;
      doneNext = page.next_cursor;
      replace(doneHolder, page.items.length ? table(null,
        [['Session'], ['Charge point'], ['Connector'], ['Status'], ['Started'], ['Stopped'], ['Energy', 'num'], ['Duration'], ['Stop reason'], ['Quality flags']],
        page.items.map((s) => h('tr', { dataset: { session: s.session_id } },
          h('td', {}, h('a', { href: `#/session/${enc(s.session_id)}` }, s.transaction_id || s.session_id.slice(0, 8))),
          h('td', {}, h('a', { href: `#/cp/${enc(s.charge_point_id)}` }, s.charge_point_id)),
          h('td', {}, s.connector_id ?? '—'), h('td', {}, sessionStatusChip(s)),
          h('td', {}, timeText(s.start_ts)), h('td', {}, timeText(s.stop_ts)),
          h('td', { class: 'num energy' }, kwh(s.energy_kwh), s.energy_is_final ? '' : ' (provisional)'),
          h('td', {}, durationText(s.duration_seconds)), h('td', {}, s.stop_reason || '—'),
          h('td', {}, flagChips(s.quality_flags)))))
        : h('p', { class: 'muted' }, 'No sessions match.'));
      replace(donePager,
        h('button', { type: 'button', class: 'secondary', disabled: doneCursors.length === 1, 'aria-label': 'Previous page of past sessions',
          onclick: () => { doneCursors.pop(); loadDone(); } }, '‹ Newer'),
        h('span', { class: 'muted' }, `page ${doneCursors.length}`),
        h('button', { type: 'button', class: 'secondary', disabled: !doneNext, 'aria-label': 'Next page of past sessions',
          onclick: () => { doneCursors.push(doneNext); loadDone(); } }, 'Older ›'));
    } catch (e) {
      if (!disposed) replace(doneHolder, errorBox(`Could not load past sessions: ${e.message}`));
    }
  }

  const refilter = () => { doneCursors = [null]; loadDone(); };
  statusSelect.addEventListener('change', refilter);
  dayInput.addEventListener('change', refilter);
  let t = null;
  cpInput.addEventListener('input', () => { clearTimeout(t); t = setTimeout(refilter, 300); });

  loadLive();
  loadDone();
  const tick = setInterval(() => loadLive(), 15000);  // durations and ages move even when nothing changes

  return {
    dispose() { disposed = true; clearInterval(tick); },
    onChanges(change) {
      if (change.sessions || change.poll) {
        loadLive();
        if (doneCursors.length === 1) loadDone();  // the first page gains the sessions that just ended
      }
    },
  };
}
