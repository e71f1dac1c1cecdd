// fleet_model.js: how the fleet overview reads the server. The server filters, pages and
// counts (GET /api/v1/charge-points with online/version/status/q, GET /api/v1/fleet), so the
// page holds one page of rows and the counts, never the whole fleet. Also what a charge point's
// connectors look like on screen (shared with the charge point screen).
import { get, query } from './api.js';
import { ocppStatusName } from './format.js';

// Connector statuses as the API names them (the `status` filter and the keys of the counts).
export const CONNECTOR_STATUSES = ['AVAILABLE', 'PREPARING', 'CHARGING', 'SUSPENDED_EV', 'SUSPENDED_EVSE',
  'FINISHING', 'RESERVED', 'UNAVAILABLE', 'FAULTED', 'OCCUPIED'];
export const OCPP_VERSIONS = ['1.6', '2.0.1'];

// Connector 0 of 1.6 stands for the whole charge point: its status is no connector's.
export function realConnectors(cp) {
  return (cp.connectors || []).filter((c) => (c.evse_id || 0) > 0 || (c.connector_id || 0) > 0);
}

export function connectorLabel(c) {
  return (c.evse_id || 0) > 0 ? `${c.evse_id}/${c.connector_id}` : String(c.connector_id);
}

// The fields a row of the fleet table shows.
export function summarize(cp) {
  return {
    id: cp.id,
    online: !!cp.connected,
    version: cp.ocpp_version || (cp.connection && cp.connection.ocpp_version
      ? cp.connection.ocpp_version.replace(/^ocpp/, '') : null),
    profile: cp.security_profile,
    vendor: cp.vendor || (cp.health && cp.health.vendor) || null,
    model: cp.model || (cp.health && cp.health.model) || null,
    firmware: cp.firmware_version || null,
    heartbeat: (cp.health && (cp.health.last_heartbeat_ts || cp.health.last_seen_ts)) || null,
    connectors: realConnectors(cp).map((c) => ({ label: connectorLabel(c), status: ocppStatusName(c.status) })),
  };
}

// One server page of charge points: filters {online: 'true'|'false', version, status, q}
// (empty ones left out), `cursor` the previous page's next_cursor (null: the first page).
export function fetchPage(filters, cursor, limit) {
  const q = filters.q && filters.q.trim() ? filters.q.trim().slice(0, 64) : '';
  return get(`/api/v1/charge-points${query({
    limit, cursor, online: filters.online, version: filters.version, status: filters.status, q,
  })}`);
}

// The fleet's counts: {charge_points: {total, online, offline, by_version}, connectors, ...}.
export function fetchCounts() {
  return get('/api/v1/fleet');
}

// Could a charge point id be on (or newly enter) the page shown? `after` is the last id of the
// page before (null on the first page); ids sort as strings, as the server orders them.
export function mayBeOnPage(id, page, after, filters) {
  if (filters.q && !id.toLowerCase().includes(filters.q.trim().toLowerCase())) return false;
  if (after !== null && id <= after) return false;
  if (!page || !page.next_cursor || !page.items.length) return true;  // last page: new ids land here
  return id <= page.items[page.items.length - 1].id;
}

// Runs `fn` (async) at most once per `minMs`, one at a time; calls while it runs or waits are
// folded into one more run afterwards. Returns {request(), cancel()}.
export function throttle(fn, minMs) {
  let last = 0;
  let running = false;
  let pending = false;
  let timer = null;
  let cancelled = false;
  async function run() {
    timer = null;
    if (cancelled) return;
    running = true;
    pending = false;
    last = Date.now();
    try { await fn(); } finally { running = false; }
    if (pending) request();
  }
  function request() {
    if (cancelled) return;
    pending = true;
    if (running || timer) return;
    timer = setTimeout(run, Math.max(0, last + minMs - Date.now()));
  }
  return { request, cancel() { cancelled = true; clearTimeout(timer); } };
}
