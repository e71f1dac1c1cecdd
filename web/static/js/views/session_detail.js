// views/session_detail.js: one session: its numbers, its meter curve (energy delivered since
// the start, an SVG line chart) and its events.
import { h, replace, errorBox, kv, table } from '../dom.js';
import { get, enc } from '../api.js';
import { kwh, kw, durationText, timeText } from '../format.js';
import { lineChart } from '../chart.js';
import { sessionStatusChip, flagChips } from './sessions.js';

export function mount(main, id) {
  let disposed = false;
  const body = h('div', {}, h('p', { class: 'muted' }, 'Loading…'));
  replace(main, h('p', {}, h('a', { href: '#/sessions' }, '‹ Sessions')), h('h1', {}, 'Session'), body);

  async function load() {
    try {
      const s = await get(`/api/v1/sessions/${enc(id)}`);
      if (disposed) return;
      const events = s.events || [];
      const start = s.meter_start_wh ?? (events.find((e) => e.meter_wh !== null) || {}).meter_wh ?? 0;
      const points = events.filter((e) => e.meter_wh !== null && e.meter_wh !== undefined)
        .map((e) => ({ x: Date.parse(e.event_ts), y: (e.meter_wh - start) / 1000 }))
        .filter((p) => Number.isFinite(p.x)).sort((a, b) => a.x - b.x);
      replace(body,
        h('div', { class: 'grid-2' },
          h('section', { class: 'panel', 'aria-label': 'Session' }, kv([
            ['Charge point', h('a', { href: `#/cp/${enc(s.charge_point_id)}` }, s.charge_point_id)],
            ['Transaction', s.transaction_id], ['Connector', s.connector_id],
            ['Status', sessionStatusChip(s)], ['Started', timeText(s.start_ts)], ['Stopped', timeText(s.stop_ts)],
            ['Duration', durationText(s.duration_seconds)],
            ['Energy', h('span', { id: 'session-energy' }, kwh(s.energy_kwh), s.energy_is_final ? ' (final)' : ' (provisional)')],
            ['Meter start / stop', `${s.meter_start_wh ?? '—'} / ${s.meter_stop_wh ?? '—'} Wh`],
            ['Stop reason', s.stop_reason], ['Quality flags', flagChips(s.quality_flags)],
            ['Conflicts', (s.conflicts || []).length ? String(s.conflicts.length) : 'none'],
          ])),
          h('section', { class: 'panel', 'aria-labelledby': 'curve-title' }, h('h2', { id: 'curve-title' }, 'Meter curve (kWh since start)'),
            points.length ? lineChart(`Energy delivered in session ${s.transaction_id || id}, kWh`, points, { yFormat: (v) => v.toFixed(2) })
              : h('p', { class: 'muted' }, 'No meter readings.'))),
        h('h2', {}, `Events (${events.length})`),
        table(null, [['Time'], ['Event'], ['Meter', 'num'], ['Power', 'num'], ['SoC', 'num'], ['Trigger / stop reason'], ['Flags'], ['Source']],
          events.map((e) => h('tr', {}, h('td', { class: 'nowrap' }, timeText(e.event_ts)), h('td', {}, e.event_type),
            h('td', { class: 'num' }, e.meter_wh ?? '—', e.meter_wh !== null && e.meter_wh !== undefined ? ' Wh' : ''),
            h('td', { class: 'num' }, kw(e.power_w)), h('td', { class: 'num' }, e.soc_pct ?? '—'),
            h('td', {}, e.stop_reason || e.trigger_reason || '—'), h('td', {}, flagChips(e.flags)), h('td', {}, e.source || '—')))));
    } catch (e) {
      if (!disposed) replace(body, errorBox(e.status === 404 ? 'No such session.' : `Could not load the session: ${e.message}`));
    }
  }
  load();
  return {
    dispose() { disposed = true; },
    onChanges(change) { if (change.sessions || change.poll) load(); },
  };
}
