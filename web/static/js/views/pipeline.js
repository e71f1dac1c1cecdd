// views/pipeline.js: the pipeline's health: event log (sink), Kafka outbox, analytics, Delta
// mirror, disk and connections. Fed by the stream's `pipeline` events (every 2 s), with one
// GET /health at the start and whenever the stream is down.
import { h, replace, errorBox, kv } from '../dom.js';
import { get } from '../api.js';
import { number, msText, timeText } from '../format.js';
import { on, streamStats } from '../stream.js';

const value = (v) => (v === null || v === undefined ? '—' : typeof v === 'object' ? JSON.stringify(v) : typeof v === 'number' ? number(v, 3) : String(v));
const yesNo = (ok, yes, no) => h('span', { class: ok ? 'state-ok' : 'state-bad' }, ok ? yes : no);

function card(label, text, bad, id) {
  return h('div', { class: `card${bad ? ' bad' : ''}`, id }, h('div', { class: 'value' }, text), h('div', { class: 'label' }, label));
}

// Members shown in their own words above; the rest of a section is listed as it is.
function rest(section, shown) {
  return Object.entries(section || {}).filter(([k]) => !shown.includes(k)).map(([k, v]) => [k.replace(/_/g, ' '), value(v)]);
}

function deltaTables(delta) {
  // Whatever per-table shape /health gives (tables: {name: {...}} or [{table, ...}]).
  const tables = delta.tables || delta.last_commit || null;
  if (!tables) return null;
  const entries = Array.isArray(tables) ? tables.map((t) => [t.table || t.name, t]) : Object.entries(tables);
  return h('div', {}, h('h3', {}, 'Last commit per table'), kv(entries.map(([name, t]) => [name,
    typeof t === 'object' && t !== null
      ? [t.last_commit_ts || t.last_commit || t.committed_at ? timeText(t.last_commit_ts || t.last_commit || t.committed_at) : null,
        t.version !== undefined ? ` version ${t.version}` : null].filter(Boolean).join('') || JSON.stringify(t)
      : value(t)])));
}

export function mount(main) {
  let disposed = false;
  const cards = h('div', { class: 'cards', id: 'pipeline-cards' });
  const sections = h('div', { class: 'grid-2', id: 'pipeline-sections' });
  const streamEl = h('section', { class: 'panel', id: 'stream-stats', 'aria-label': 'Live stream' });
  const note = h('p', { class: 'muted', id: 'pipeline-updated' });
  const errorHolder = h('div');
  replace(main, h('h1', {}, 'Pipeline'), note, errorHolder, cards, sections, streamEl);

  function render(report, source) {
    const sink = report.sink || {}, kafka = report.kafka || {}, analytics = report.analytics || {};
    const delta = report.delta || {}, disk = report.disk || {};
    const healthy = report.status === 'ok';
    replace(note, `Updated ${new Date().toLocaleTimeString()} from ${source}.`);
    replace(cards,
      card('gateway', healthy ? 'healthy' : 'UNHEALTHY', !healthy, 'pipeline-status'),
      card('event log', sink.healthy === false ? 'refuses writes' : 'accepts writes', sink.healthy === false),
      card('Kafka outbox depth', number(kafka.outbox_depth), kafka.high_water_alert, 'outbox-depth'),
      card('oldest unpublished', msText(kafka.oldest_unpublished_age_ms), kafka.enabled && kafka.oldest_unpublished_age_ms > 60000),
      card('publish rate', `${number(kafka.publish_rate, 1)} /s`, false),
      card('Kafka delivery errors', number(kafka.delivery_errors), kafka.delivery_errors > 0),
      card('analytics lag', `${number(analytics.lag_events)} events`, analytics.lag_events > 10000, 'analytics-lag'),
      card('conservation violations', number(analytics.conservation_violations), analytics.conservation_violations > 0),
      card('connections', number(report.connections), false, 'pipeline-connections'));
    replace(sections,
      h('section', { class: 'panel', 'aria-label': 'Event log' }, h('h2', {}, 'Event log'), kv([
        ['State', yesNo(sink.healthy !== false, 'accepts writes', 'refuses writes')],
        ['Events committed', number(sink.events_committed)], ['Frames committed', number(sink.frames_committed)],
        ['Last commit took', sink.last_commit_ms !== undefined ? `${number(sink.last_commit_ms, 2)} ms` : '—'],
        ['Last error', sink.last_error || 'none'], ...rest(sink, ['healthy', 'events_committed', 'frames_committed', 'last_commit_ms', 'last_error']),
      ])),
      h('section', { class: 'panel', 'aria-label': 'Kafka' }, h('h2', {}, 'Kafka'), kv([
        ['Publishing', kafka.enabled === false ? 'disabled (no broker configured): events wait in the outbox' : yesNo(kafka.running, 'running', 'stopped')],
        ['Outbox depth', number(kafka.outbox_depth)], ['Oldest unpublished', msText(kafka.oldest_unpublished_age_ms)],
        ['Publish rate', `${number(kafka.publish_rate, 1)} events/s`], ['Delivered', number(kafka.delivered)],
        ['Delivery errors', number(kafka.delivery_errors)], ['Last error', kafka.last_error || 'none'],
        ...rest(kafka, ['enabled', 'running', 'outbox_depth', 'oldest_unpublished_age_ms', 'publish_rate', 'delivered', 'delivery_errors', 'last_error']),
      ])),
      h('section', { class: 'panel', 'aria-label': 'Analytics' }, h('h2', {}, 'Analytics'), kv([
        ['Lag', `${number(analytics.lag_events)} events`], ['Batches', number(analytics.batches)],
        ['Failed batches', number(analytics.failed_batches)], ['Conservation violations', number(analytics.conservation_violations)],
        ...rest(analytics, ['lag_events', 'batches', 'failed_batches', 'conservation_violations']),
      ])),
      h('section', { class: 'panel', 'aria-label': 'Delta' }, h('h2', {}, 'Delta mirror'),
        kv(rest(delta, ['tables', 'last_commit'])), deltaTables(delta)),
      h('section', { class: 'panel', 'aria-label': 'Disk and connections' }, h('h2', {}, 'Disk and connections'), kv([
        ['Disk', disk.state || '—'], ['Free', disk.free_bytes !== undefined ? `${number(disk.free_bytes / 1e9, 1)} GB` : '—'],
        ['Connections', number(report.connections)],
        ['Connection limit', report.connection_limit ? `${number(report.connection_limit.open)} open of ${number(report.connection_limit.max)}` : '—'],
      ])));
    renderStream();
  }

  function renderStream() {
    replace(streamEl, h('h2', {}, 'Live stream'), kv([
      ['State', yesNo(streamStats.live, 'live', 'offline')], ['Connections made', number(streamStats.connects)],
      ['Changes events', h('span', { id: 'stream-changes' }, number(streamStats.changes))],
      ['Last seq', h('span', { id: 'stream-seq' }, value(streamStats.lastSeq))],
      ['Seq gaps', h('span', { id: 'stream-gaps' }, number(streamStats.seqGaps))],
      ['Pipeline events', number(streamStats.pipelineEvents)],
    ]));
  }

  async function fetchHealth() {
    try {
      render(await get('/health'), 'GET /health');
      replace(errorHolder);
    } catch (e) {
      if (e.status === 503 && e.body && e.body.status) render(e.body, 'GET /health');  // unhealthy still has its report
      else if (!disposed) replace(errorHolder, errorBox(`Could not read /health: ${e.message}`));
    }
  }

  if (streamStats.lastPipeline) render(streamStats.lastPipeline, 'the live stream'); else fetchHealth();
  const off = on('pipeline', (report) => { if (!disposed) render(report, 'the live stream'); });
  return {
    dispose() { disposed = true; off(); },
    onChanges(change) { if (change.poll) fetchHealth(); else renderStream(); },
  };
}
