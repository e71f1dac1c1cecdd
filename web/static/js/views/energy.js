// views/energy.js: energy per day (final vs provisional) and sessions per day, fleet-wide or
// for one charge point, from /api/v1/daily-stats.
import { h, replace, errorBox, table } from '../dom.js';
import { get, query } from '../api.js';
import { barChart } from '../chart.js';
import { number } from '../format.js';

function dayOffset(days) { return new Date(Date.now() + days * 86400000).toISOString().slice(0, 10); }

export function mount(main) {
  let disposed = false;
  const from = h('input', { id: 'energy-from', type: 'date', 'aria-label': 'From day' });
  const to = h('input', { id: 'energy-to', type: 'date', 'aria-label': 'To day' });
  const cp = h('input', { id: 'energy-cp', type: 'search', placeholder: 'whole fleet', 'aria-label': 'Charge point id (empty: whole fleet)' });
  from.value = dayOffset(-29); to.value = dayOffset(0);
  const body = h('div', {});
  replace(main, h('h1', {}, 'Energy and usage'),
    h('div', { class: 'toolbar' }, h('label', {}, 'From', from), h('label', {}, 'To', to), h('label', {}, 'Charge point', cp)),
    body);

  async function load() {
    try {
      const rows = [];
      let cursor = null;
      do {  // at most a few pages: one row per day
        const page = await get(`/api/v1/daily-stats${query({ from: from.value, to: to.value, charge_point_id: cp.value.trim(), limit: 500, cursor })}`);
        rows.push(...page.items);
        cursor = page.next_cursor;
      } while (cursor);
      if (disposed) return;
      const totalFinal = rows.reduce((s, r) => s + (r.energy_kwh_final || 0), 0);
      const totalProv = rows.reduce((s, r) => s + (r.energy_kwh_provisional || 0), 0);
      const totalSessions = rows.reduce((s, r) => s + (r.sessions_total || r.sessions_started || 0), 0);
      replace(body,
        h('div', { class: 'cards' },
          h('div', { class: 'card' }, h('div', { class: 'value', id: 'energy-final-total' }, `${number(totalFinal, 3)} kWh`), h('div', { class: 'label' }, 'final energy')),
          h('div', { class: 'card' }, h('div', { class: 'value' }, `${number(totalProv, 3)} kWh`), h('div', { class: 'label' }, 'provisional energy (open sessions)')),
          h('div', { class: 'card' }, h('div', { class: 'value', id: 'sessions-total' }, number(totalSessions)), h('div', { class: 'label' }, 'sessions'))),
        rows.length ? [
          h('section', { class: 'panel', 'aria-labelledby': 'energy-chart-title' },
            h('h2', { id: 'energy-chart-title' }, 'Energy per day (kWh)'),
            h('div', { class: 'legend' }, h('span', {}, h('span', { class: 'swatch final' }), 'final'),
              h('span', {}, h('span', { class: 'swatch provisional' }), 'provisional')),
            barChart('Energy per day in kWh, final and provisional', rows.map((r) => ({ label: r.day.slice(5),
              values: { final: r.energy_kwh_final, provisional: r.energy_kwh_provisional } })),
            [{ key: 'final', className: 'bar-final', label: 'final' }, { key: 'provisional', className: 'bar-provisional', label: 'provisional' }],
            { yFormat: (v) => number(v, 2) })),
          h('section', { class: 'panel', 'aria-labelledby': 'sessions-chart-title' },
            h('h2', { id: 'sessions-chart-title' }, 'Sessions per day'),
            barChart('Sessions started per day', rows.map((r) => ({ label: r.day.slice(5), values: { n: r.sessions_total ?? r.sessions_started } })),
              [{ key: 'n', className: 'bar-sessions', label: 'sessions' }], { yFormat: (v) => number(v, 1) })),
          h('details', {}, h('summary', {}, 'The numbers as a table'),
            table(null, [['Day'], ['Final kWh', 'num'], ['Provisional kWh', 'num'], ['Sessions', 'num'], ['Completed', 'num'], ['In progress', 'num'], ['Timed out', 'num'], ['Charge points', 'num']],
              rows.map((r) => h('tr', {}, h('td', {}, r.day), h('td', { class: 'num' }, number(r.energy_kwh_final, 3)),
                h('td', { class: 'num' }, number(r.energy_kwh_provisional, 3)), h('td', { class: 'num' }, number(r.sessions_total)),
                h('td', { class: 'num' }, number(r.sessions_completed)), h('td', { class: 'num' }, number(r.sessions_in_progress)),
                h('td', { class: 'num' }, number(r.sessions_timed_out)), h('td', { class: 'num' }, number(r.charge_points)))))),
        ] : h('p', { class: 'muted' }, 'No sessions in these days.'));
    } catch (e) {
      if (!disposed) replace(body, errorBox(`Could not load daily statistics: ${e.message}`));
    }
  }
  for (const el of [from, to]) el.addEventListener('change', load);
  let t = null;
  cp.addEventListener('input', () => { clearTimeout(t); t = setTimeout(load, 300); });
  load();
  let last = 0;
  return {
    dispose() { disposed = true; },
    onChanges(change) {  // daily sums move with every session change: at most every 5 s
      if ((change.sessions || change.poll) && Date.now() - last > 5000) { last = Date.now(); load(); }
    },
  };
}
