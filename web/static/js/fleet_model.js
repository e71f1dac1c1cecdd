// fleet_model.js: what the page knows of the whole fleet, for the counts, filters and sorts that
// the charge point list route does not offer (it pages by id only). Built by walking every
// cursor page (500 a request: 40 requests at 20,000 charge points) and kept current from the
// stream: a few changed ids are fetched one by one, many (or "*") trigger another walk, at
// most one at a time and not more often than every few seconds.
import { get, enc } from './api.js';
import { ocppStatusName } from './format.js';

const SCAN_PAGE = 500;
const RESCAN_MIN_INTERVAL_MS = 3000;

// Connector 0 of 1.6 stands for the whole charge point: its status is no connector's.
export function realConnectors(cp) {
  return (cp.connectors || []).filter((c) => (c.evse_id || 0) > 0 || (c.connector_id || 0) > 0);
}

export function connectorLabel(c) {
  return (c.evse_id || 0) > 0 ? `${c.evse_id}/${c.connector_id}` : String(c.connector_id);
}

// The few fields the fleet list needs, so 20,000 of them stay small.
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

export const fleet = {
  byId: new Map(),
  complete: false,        // every page walked at least once
  scanning: false,
  loadedDuringScan: 0,
  lastScanStarted: 0,
  rescanWanted: false,
  listeners: new Set(),
};

function notify() { for (const fn of fleet.listeners) fn(); }

export function subscribe(fn) { fleet.listeners.add(fn); return () => fleet.listeners.delete(fn); }

// Walks every page; the new map replaces the old one only when complete, so counts never show
// a half-walked fleet as if it were all of it.
export async function scan() {
  if (fleet.scanning) { fleet.rescanWanted = true; return; }
  fleet.scanning = true;
  fleet.rescanWanted = false;
  fleet.lastScanStarted = Date.now();
  fleet.loadedDuringScan = 0;
  const next = new Map();
  try {
    let cursor = null;
    do {
      const page = await get(`/api/v1/charge-points?limit=${SCAN_PAGE}${cursor ? `&cursor=${enc(cursor)}` : ''}`);
      for (const cp of page.items) next.set(cp.id, summarize(cp));
      fleet.loadedDuringScan = next.size;
      cursor = page.next_cursor;
      if (!fleet.complete) notify();  // progress while nothing complete is known yet
    } while (cursor);
    fleet.byId = next;
    fleet.complete = true;
  } catch (e) {
    console.warn('fleet scan failed', e);
    fleet.rescanWanted = true;
  } finally {
    fleet.scanning = false;
  }
  notify();
  if (fleet.rescanWanted) scheduleScan();
}

let scanTimer = null;
export function scheduleScan() {
  if (fleet.scanning) { fleet.rescanWanted = true; return; }
  if (scanTimer) return;
  const wait = Math.max(0, fleet.lastScanStarted + RESCAN_MIN_INTERVAL_MS - Date.now());
  scanTimer = setTimeout(() => { scanTimer = null; scan(); }, wait);
}

// Fetches the given charge points and updates them in the model (6 requests at a time).
export async function refreshIds(ids) {
  const queue = [...ids];
  const fetched = [];
  async function worker() {
    while (queue.length) {
      const id = queue.shift();
      try {
        const cp = await get(`/api/v1/charge-points/${enc(id)}`);
        // The list holds booted charge points only; keep the model the same.
        if (cp.last_boot || fleet.byId.has(id)) {
          fleet.byId.set(id, summarize(cp));
          fetched.push(cp);
        }
      } catch (e) {
        if (e.status === 404) fleet.byId.delete(id);
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(6, queue.length) }, worker));
  notify();
  return fetched;
}

// Counts of charge points online / offline and of connectors per OCPP status.
export function counts() {
  const result = { total: 0, online: 0, offline: 0, byStatus: new Map() };
  for (const cp of fleet.byId.values()) {
    result.total += 1;
    if (cp.online) result.online += 1; else result.offline += 1;
    for (const c of cp.connectors) result.byStatus.set(c.status, (result.byStatus.get(c.status) || 0) + 1);
  }
  return result;
}
