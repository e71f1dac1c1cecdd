// views/quality.js: data quality from /api/v1/data-quality (conservation check, rates, late
// arrivals, clock skew, alerts) and the quarantine, with repair / discard / replay for operators.
import { h, replace, errorBox, kv, table } from '../dom.js';
import { get, post, query, hasRole } from '../api.js';
import { number, percent, msText, timeText } from '../format.js';
import { confirmDialog } from '../commands.js';

export function mount(main) {
  let disposed = false;
  const ui = { status: 'NEW', reason: '' };
  let cursors = [null];
  let next = null;
  const conservationEl = h('section', { id: 'conservation', class: 'panel', 'aria-labelledby': 'conservation-title' });
  const ratesEl = h('div', { class: 'grid-2' });
  const alertsEl = h('div', { id: 'quality-alerts' });
  const quarantineEl = h('div', { id: 'quarantine' });
  const byReasonEl = h('div', { class: 'counts', id: 'quarantine-by-reason' });
  const pager = h('div', { class: 'pager' });
  const outcome = h('div', { class: 'outcome', id: 'quarantine-outcome', 'aria-live': 'polite' });
  const statusSelect = h('select', { id: 'quarantine-status', 'aria-label': 'Quarantine status' },
    ['NEW', 'REPAIRED', 'DISCARDED', 'REPLAYED', ''].map((s) => h('option', { value: s }, s ? s.toLowerCase() : 'any status')));
  const reasonSelect = h('select', { id: 'quarantine-reason', 'aria-label': 'Quarantine reason' }, h('option', { value: '' }, 'any reason'));
  const errorHolder = h('div');
  replace(main, h('h1', {}, 'Data quality'), errorHolder, alertsEl, conservationEl, ratesEl,
    h('section', { 'aria-labelledby': 'quarantine-title' }, h('h2', { id: 'quarantine-title' }, 'Quarantine'), byReasonEl,
      h('div', { class: 'toolbar' }, h('label', {}, 'Status', statusSelect), h('label', {}, 'Reason', reasonSelect)),
      outcome, quarantineEl, pager));

  function renderQuality(dq) {
    const c = dq.conservation || {};
    const sum = (c.silver || 0) + (c.duplicates || 0) + (c.quarantine || 0);
    const ok = c.conservation_ok !== false && c.raw === sum;
    conservationEl.classList.toggle('failed', !ok);
    replace(conservationEl, h('h2', { id: 'conservation-title' }, 'Conservation check'),
      h('p', { id: 'conservation-state', class: ok ? 'state-ok' : 'state-bad', role: ok ? null : 'alert' },
        ok ? 'OK: every raw event is accounted for' : 'FAILED: events are missing or counted twice'),
      h('p', { class: 'mono', id: 'conservation-equation' },
        `raw ${number(c.raw)} ${c.raw === sum ? '=' : '≠'} Silver ${number(c.silver)} + duplicates ${number(c.duplicates)} + quarantine ${number(c.quarantine)}${c.raw === sum ? '' : ` (= ${number(sum)})`}`));
    const r = dq.rates || {};
    const lag = dq.late_arrival_lag || {};
    replace(ratesEl,
      h('section', { class: 'panel', 'aria-label': 'Rates' }, h('h2', {}, 'Rates'), kv([
        ['Technical duplicates', percent(r.technical_duplicates)], ['Business duplicates', percent(r.business_duplicates)],
        ['Conflicts', percent(r.conflicts)], ['Quarantined', percent(r.quarantined)], ['Unknown fields', percent(r.unknown_fields)],
        ...Object.entries(r.quarantine_by_reason || {}).map(([k, v]) => [`Quarantined: ${k}`, percent(v)]),
      ])),
      h('section', { class: 'panel', 'aria-label': 'Late arrivals' }, h('h2', {}, 'Late-arrival lag'), kv([
        ['Events', number(lag.events)], ['p50 at most', msText(lag.p50_ms_at_most)], ['p95 at most', msText(lag.p95_ms_at_most)],
        ['p99 at most', msText(lag.p99_ms_at_most)],
        ...(lag.histogram || []).map((b) => [`≤ ${msText(b.bucket_upper_ms)}`, number(b.events)]),
      ])),
      h('section', { class: 'panel', 'aria-label': 'Clock skew' }, h('h2', {}, 'Clock-skew offenders'),
        (dq.clock_skew_top || []).length ? table(null, [['Charge point'], ['Skewed events', 'num'], ['Max ahead'], ['Last offset']],
          dq.clock_skew_top.map((s) => h('tr', {}, h('td', {}, h('a', { href: `#/cp/${encodeURIComponent(s.charge_point_id)}` }, s.charge_point_id)),
            h('td', { class: 'num' }, `${number(s.skewed_events)} of ${number(s.events)}`), h('td', {}, msText(s.max_ahead_ms)),
            h('td', {}, msText(s.last_offset_ms)))))
          : h('p', { class: 'muted' }, 'No charge point with a skewed clock.')),
      h('section', { class: 'panel', 'aria-label': 'Open sessions by age' }, h('h2', {}, 'Open sessions by age'),
        kv(['under_1h', 'h1_to_6h', 'h6_to_24h', 'over_24h'].filter((k) => k in (dq.open_sessions_by_age || {}))
          .map((k) => [{ under_1h: 'under 1 h', h1_to_6h: '1 to 6 h', h6_to_24h: '6 to 24 h', over_24h: 'over 24 h' }[k],
            dq.open_sessions_by_age[k] ?? 0]))));
    replace(alertsEl, (dq.alerts || []).map((a) => errorBox(typeof a === 'string' ? a : (a.message || JSON.stringify(a)))));
    // Quarantine by reason: totals "quarantine:REASON" are counts since the start.
    const reasons = Object.entries(dq.totals || {}).filter(([k]) => k.startsWith('quarantine:')).map(([k, v]) => [k.slice(11), v]);
    replace(byReasonEl, reasons.map(([reason, n]) => h('button', { type: 'button', class: 'count secondary',
      'aria-label': `${reason}: ${n} quarantined, show these`, onclick: () => { reasonSelect.value = reason; refilter(); } },
    reason, h('strong', {}, String(n)))));
    const known = new Set([...reasonSelect.options].map((o) => o.value));
    for (const [reason] of reasons) if (!known.has(reason)) reasonSelect.append(h('option', { value: reason }, reason));
  }

  async function act(item, kind) {
    const id = item.quarantine_id;
    let body;
    if (kind === 'repair') {
      const values = await confirmDialog(`Repair quarantined event ${id}?`, [{ name: 'payload', label: 'Corrected canonical event (JSON)',
        kind: 'textarea', value: item.repaired_payload || item.raw_payload || '' }]);
      if (!values) return;
      body = { payload: values.payload };
    } else {
      const values = await confirmDialog(`${kind === 'discard' ? 'Discard' : 'Replay'} quarantined event ${id}?`, [],
        () => kind === 'discard' ? 'The event is marked DISCARDED and stays out of Silver.'
          : 'The event (its repaired payload if any) goes through Silver again.');
      if (!values) return;
    }
    try {
      const answer = await post(`/api/v1/quarantine/${id}/${kind}`, body);
      replace(outcome, h('div', { class: 'ok-box', role: 'status' }, `Quarantine ${id}: ${answer.status}${answer.report ? ` ${JSON.stringify(answer.report)}` : ''}`));
    } catch (e) {
      replace(outcome, errorBox(`Quarantine ${id}: ${kind} refused: ${e.message}`));
    }
    load();
  }

  async function loadQuarantine() {
    const cursor = cursors[cursors.length - 1];
    const page = await get(`/api/v1/quarantine${query({ status: ui.status, reason: ui.reason, limit: 25, cursor })}`);
    if (disposed) return;
    next = page.next_cursor;
    const operator = hasRole('operator');
    replace(quarantineEl, page.items.length ? table(null,
      [['Id'], ['Quarantined'], ['Charge point'], ['Reason'], ['Detail'], ['Status'], operator ? ['Review'] : null].filter(Boolean),
      page.items.map((q) => h('tr', { dataset: { quarantine: q.quarantine_id } },
        h('td', {}, String(q.quarantine_id)), h('td', { class: 'nowrap' }, timeText(q.quarantined_at)),
        h('td', {}, q.charge_point_id ? h('a', { href: `#/cp/${encodeURIComponent(q.charge_point_id)}` }, q.charge_point_id) : '—'),
        h('td', {}, h('span', { class: 'chip bad' }, q.reason)), h('td', {}, q.detail || '—'),
        h('td', {}, q.status, q.replay_outcome ? ` (${q.replay_outcome})` : '', q.reviewed_by ? ` by ${q.reviewed_by}` : ''),
        operator ? h('td', { class: 'nowrap' }, ['repair', 'discard', 'replay'].map((kind) => h('button', {
          type: 'button', class: 'secondary', disabled: q.status === 'DISCARDED' || q.status === 'REPLAYED' || null,
          'aria-label': `${kind} quarantined event ${q.quarantine_id}`, onclick: () => act(q, kind) }, kind))) : null)))
      : h('p', { class: 'muted' }, 'Nothing in quarantine with this status and reason.'));
    replace(pager,
      h('button', { type: 'button', class: 'secondary', disabled: cursors.length === 1, 'aria-label': 'Newer quarantined events',
        onclick: () => { cursors.pop(); loadQuarantine(); } }, '‹ Newer'),
      h('span', { class: 'muted' }, `page ${cursors.length}`),
      h('button', { type: 'button', class: 'secondary', disabled: !next, 'aria-label': 'Older quarantined events',
        onclick: () => { cursors.push(next); loadQuarantine(); } }, 'Older ›'));
  }

  async function load() {
    try {
      const dq = await get('/api/v1/data-quality');
      if (disposed) return;
      renderQuality(dq);
      await loadQuarantine();
      replace(errorHolder);
    } catch (e) {
      if (!disposed) replace(errorHolder, errorBox(`Could not load data quality: ${e.message}`));
    }
  }
  function refilter() { ui.status = statusSelect.value; ui.reason = reasonSelect.value; cursors = [null]; loadQuarantine().catch((e) => replace(quarantineEl, errorBox(e.message))); }
  statusSelect.addEventListener('change', refilter);
  reasonSelect.addEventListener('change', refilter);
  load();
  return {
    dispose() { disposed = true; },
    onChanges(change) { if (change.quality || change.poll) load(); },
  };
}
