// views/charge_point.js: one charge point: connection and its history, connectors and their
// status timeline, recent sessions, last known configuration (1.6) or variables (2.0.1), and
// commands (operator and admin only: a viewer's page has no command buttons at all).
import { h, replace, errorBox, kv, table } from '../dom.js';
import { get, enc, hasRole, query } from '../api.js';
import { ageText, timeText, kwh, durationText, ocppStatusName, statusClass } from '../format.js';
import { realConnectors, connectorLabel } from '../fleet_model.js';
import { statusChip } from './chips.js';
import { timeline } from '../chart.js';
import { commandsFor, runCommand } from '../commands.js';
import { sessionStatusChip } from './sessions.js';

export function mount(main, id) {
  let disposed = false;
  let cp = null;
  const title = h('h1', {}, id);
  const info = h('div', { class: 'grid-2' });
  const commandsPanel = h('section', { class: 'panel', 'aria-labelledby': 'commands-title' });
  const outcome = h('div', { class: 'outcome', id: 'command-outcome', 'aria-live': 'polite' });
  const timelinePanel = h('section', { class: 'panel', 'aria-labelledby': 'timeline-title' });
  const connectionsPanel = h('section', { class: 'panel', 'aria-labelledby': 'connections-title' });
  const sessionsPanel = h('section', { class: 'panel', 'aria-labelledby': 'cp-sessions-title' });
  const configPanel = h('section', { class: 'panel', 'aria-labelledby': 'config-title' });
  const errorHolder = h('div');
  replace(main, h('p', {}, h('a', { href: '#/fleet' }, '‹ Fleet')), title, errorHolder, info,
    hasRole('operator') ? commandsPanel : null, timelinePanel, connectionsPanel, sessionsPanel, configPanel);

  function renderInfo() {
    const conn = cp.connection || {};
    const health = cp.health || {};
    replace(title, cp.id, ' ', h('span', { class: `chip ${cp.connected ? 'online' : 'offline'}`, id: 'cp-connection' },
      cp.connected ? 'online' : 'offline'));
    replace(info,
      h('section', { class: 'panel', 'aria-label': 'Connection' }, h('h2', {}, 'Connection'), kv([
        ['OCPP version', cp.ocpp_version || (conn.ocpp_version || '').replace(/^ocpp/, '') || '—'],
        ['Connected since', cp.connected ? timeText(conn.connected_since) : 'not connected'],
        ['Remote address', conn.remote_address],
        ['Security profile', cp.security_profile ?? 'none assigned'],
        ['Password set', cp.has_password ? 'yes' : 'no'],
        ['Liveness', health.liveness],
        ['Last heartbeat', health.last_heartbeat_ts ? `${ageText(health.last_heartbeat_ts)} (${timeText(health.last_heartbeat_ts)})` : '—'],
        ['Heartbeat interval', health.heartbeat_interval_s ? `${health.heartbeat_interval_s} s` : '—'],
      ])),
      h('section', { class: 'panel', 'aria-label': 'Identity' }, h('h2', {}, 'Identity'), kv([
        ['Vendor', cp.vendor], ['Model', cp.model], ['Serial number', cp.serial_number],
        ['Firmware', cp.firmware_version], ['Registration', cp.registration_status],
        ['First seen', timeText(cp.first_seen)], ['Last boot', timeText(cp.last_boot)],
      ]), h('h3', {}, 'Connectors'), h('div', { id: 'cp-connectors' },
        realConnectors(cp).length ? realConnectors(cp).map((c) => statusChip(c.status, connectorLabel(c)))
          : h('span', { class: 'muted' }, 'none reported'))));
  }

  function renderCommands() {
    if (!hasRole('operator')) return;
    const version = cp.ocpp_version || ((cp.connection || {}).ocpp_version || '').replace(/^ocpp/, '');
    replace(commandsPanel, h('h2', { id: 'commands-title' }, `Commands (OCPP ${version || '1.6'})`),
      cp.connected ? null : h('p', { class: 'muted' }, 'Not connected: commands will be refused.'),
      h('div', { class: 'commands' }, commandsFor(version).map((command) =>
        h('button', { type: 'button', class: command.danger ? 'danger' : null, dataset: { action: command.action },
          'aria-label': `${command.label} (${command.action})`,
          onclick: () => runCommand(cp.id, command, outcome).then(() => refresh()) }, command.label))),
      outcome);
  }

  async function renderTimeline() {
    const history = await get(`/api/v1/status-history${query({ charge_point_id: id, limit: 500 })}`);
    const now = Date.now();
    const items = history.items.filter((r) => (r.evse_id || 0) > 0 || (r.connector_id || 0) > 0);
    // From the oldest interval fetched, at least the last 10 minutes (so a fresh charge point's
    // few seconds of history do not fill the whole width as one sliver each).
    const t0 = Math.min(now - 600000, ...items.map((r) => Date.parse(r.valid_from)));
    const lanesByLabel = new Map();
    for (const r of items.slice().reverse()) {
      const label = connectorLabel(r);
      if (!lanesByLabel.has(label)) lanesByLabel.set(label, { label: `# ${label}`, segments: [] });
      const from = Date.parse(r.valid_from), to = r.valid_to ? Date.parse(r.valid_to) : now;
      lanesByLabel.get(label).segments.push({ from, to, className: statusClass(r.status),
        label: `connector ${label}: ${ocppStatusName(r.status)} from ${timeText(r.valid_from)} to ${r.valid_to ? timeText(r.valid_to) : 'now'}` });
    }
    const lanes = [...lanesByLabel.values()].sort((a, b) => a.label.localeCompare(b.label));
    replace(timelinePanel, h('h2', { id: 'timeline-title' }, 'Connector status timeline'),
      lanes.length ? timeline(`Connector status of ${id} over time`, lanes, t0, now) : h('p', { class: 'muted' }, 'No status reported yet.'),
      items.length ? h('details', {}, h('summary', {}, `${items.length} status intervals as a table`),
        table(null, [['Connector'], ['Status'], ['From'], ['To'], ['Error code']], items.map((r) => h('tr', {},
          h('td', {}, connectorLabel(r)), h('td', {}, statusChip(r.status)), h('td', {}, timeText(r.valid_from)),
          h('td', {}, r.valid_to ? timeText(r.valid_to) : 'now'), h('td', {}, r.error_code || '—'))))) : null);
  }

  async function renderConnections() {
    const page = await get(`/api/v1/charge-points/${enc(id)}/connections${query({ limit: 20 })}`);
    replace(connectionsPanel, h('h2', { id: 'connections-title' }, 'Connection history'),
      page.items.length ? table(null, [['When'], ['Event'], ['Remote address'], ['Protocol'], ['Close code'], ['Reason']],
        page.items.map((c) => h('tr', { dataset: { state: c.state } },
          h('td', {}, timeText(new Date(c.event_ts).toISOString())),
          h('td', {}, h('span', { class: `chip ${c.state === 'connected' ? 'online' : 'offline'}` }, c.state)),
          h('td', { class: 'mono' }, c.remote_address || '—'), h('td', {}, c.subprotocol || '—'),
          h('td', {}, c.close_code ?? '—'), h('td', {}, c.reason || '—'))))
        : h('p', { class: 'muted' }, 'No connections recorded yet.'));
  }

  async function renderSessions() {
    const page = await get(`/api/v1/sessions${query({ charge_point_id: id, limit: 10 })}`);
    const version = cp && (cp.ocpp_version || '1.6');
    const stop = commandsFor(version).find((c) => /Stop/.test(c.action));
    replace(sessionsPanel, h('h2', { id: 'cp-sessions-title' }, 'Recent sessions'),
      page.items.length ? table(null, [['Session'], ['Connector'], ['Status'], ['Started'], ['Energy', 'num'], ['Duration'], ['Stop reason'], ['']],
        page.items.map((s) => h('tr', { dataset: { session: s.session_id } },
          h('td', {}, h('a', { href: `#/session/${enc(s.session_id)}` }, s.transaction_id || s.session_id.slice(0, 8))),
          h('td', {}, s.connector_id ?? '—'), h('td', {}, sessionStatusChip(s)), h('td', {}, timeText(s.start_ts)),
          h('td', { class: 'num' }, kwh(s.energy_kwh), s.energy_is_final ? '' : ' (provisional)'),
          h('td', {}, durationText(s.duration_seconds)), h('td', {}, s.stop_reason || '—'),
          h('td', {}, s.is_open && hasRole('operator') && stop ? h('button', { type: 'button', class: 'secondary',
            'aria-label': `${stop.label} transaction ${s.transaction_id}`,
            onclick: () => runCommand(id, stop, outcome, { transactionId: s.transaction_id }).then(() => refresh()) },
          stop.label) : null))))
        : h('p', { class: 'muted' }, 'No sessions yet.'));
  }

  async function renderConfig() {
    const v201 = cp.ocpp_version === '2.0.1';
    const path = `/api/v1/charge-points/${enc(id)}/${v201 ? 'variables' : 'configuration'}`;
    const data = await get(path);
    const items = data.items || [];
    replace(configPanel, h('h2', { id: 'config-title' }, v201 ? 'Last known variables' : 'Last known configuration'),
      items.length ? (v201
        ? table(null, [['Component'], ['Variable'], ['Attribute'], ['Value'], ['Updated']], items.map((i) => h('tr', {},
          h('td', {}, typeof i.component === 'object' ? JSON.stringify(i.component) : i.component),
          h('td', {}, typeof i.variable === 'object' ? JSON.stringify(i.variable) : i.variable),
          h('td', {}, i.attributeType || 'Actual'), h('td', { class: 'mono' }, i.value ?? '—'),
          h('td', {}, i.updated_ms ? timeText(new Date(i.updated_ms).toISOString()) : '—'))))
        : table(null, [['Key'], ['Value'], ['Read-only'], ['Updated']], items.map((i) => h('tr', {},
          h('td', {}, i.key), h('td', { class: 'mono' }, i.value ?? '—'), h('td', {}, i.readonly ? 'yes' : 'no'),
          h('td', {}, i.updated_ms ? timeText(new Date(i.updated_ms).toISOString()) : '—')))))
        : h('p', { class: 'muted' }, `Nothing known yet: ${v201 ? 'Get variables' : 'Get configuration'} asks the charge point.`));
  }

  let refreshing = null;
  let renderedConnected = null;
  async function refresh() {
    if (refreshing) return refreshing;
    refreshing = (async () => {
      try {
        cp = await get(`/api/v1/charge-points/${enc(id)}`);
        if (disposed) return;
        replace(errorHolder);
        renderInfo();
        if (!commandsPanel.firstChild || renderedConnected !== cp.connected) {
          renderedConnected = cp.connected;
          renderCommands();
        }
        await Promise.all([renderTimeline(), renderConnections(), renderSessions(), renderConfig()]
          .map((p) => p.catch((e) => console.warn(e))));
      } catch (e) {
        if (!disposed) replace(errorHolder, errorBox(e.status === 404 ? `No charge point ${id} is known.` : `Could not load ${id}: ${e.message}`));
      } finally { refreshing = null; }
    })();
    return refreshing;
  }
  refresh();

  return {
    dispose() { disposed = true; },
    onChanges(change) {
      const ids = change.charge_points;
      if (change.poll || change.sessions || ids === '*' || (Array.isArray(ids) && ids.includes(id))) refresh();
    },
  };
}
