// format.js: how values read on the page (OCPP names, ages, energy, times).

// The gateway stores connector statuses upper-snake (SUSPENDED_EV); operators know them by
// their OCPP names (SuspendedEV), so chips show those.
const OCPP_STATUS_NAMES = {
  AVAILABLE: 'Available', PREPARING: 'Preparing', CHARGING: 'Charging', SUSPENDED_EV: 'SuspendedEV',
  SUSPENDED_EVSE: 'SuspendedEVSE', SUSPENDEDEV: 'SuspendedEV', SUSPENDEDEVSE: 'SuspendedEVSE',
  FINISHING: 'Finishing', RESERVED: 'Reserved', UNAVAILABLE: 'Unavailable', FAULTED: 'Faulted',
  OCCUPIED: 'Occupied',
};

export function ocppStatusName(status) {
  if (!status) return 'Unknown';
  const key = String(status).toUpperCase();
  if (OCPP_STATUS_NAMES[key]) return OCPP_STATUS_NAMES[key];
  return String(status).toLowerCase().replace(/(^|_)([a-z])/g, (_, __, c) => c.toUpperCase());
}

// CSS class of a status chip: s-<ocpp name lower-cased>.
export function statusClass(status) {
  return 's-' + ocppStatusName(status).toLowerCase();
}

export function ageText(iso, now = Date.now()) {
  if (!iso) return '—';
  const seconds = Math.round((now - Date.parse(iso)) / 1000);
  if (!Number.isFinite(seconds)) return '—';
  if (seconds < 0) return 'in the future';
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h ago`;
  return `${Math.floor(seconds / 86400)} d ago`;
}

export function durationText(seconds) {
  if (seconds === null || seconds === undefined) return '—';
  const s = Math.max(0, Math.round(seconds));
  const hours = Math.floor(s / 3600), minutes = Math.floor((s % 3600) / 60), rest = s % 60;
  if (hours) return `${hours} h ${minutes} min`;
  if (minutes) return `${minutes} min ${rest} s`;
  return `${rest} s`;
}

export function kwh(value) {
  if (value === null || value === undefined) return '—';
  return `${Number(value).toFixed(3)} kWh`;
}

export function kw(watts) {
  if (watts === null || watts === undefined) return '—';
  return `${(Number(watts) / 1000).toFixed(2)} kW`;
}

export function timeText(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

export function number(value, digits = 0) {
  if (value === null || value === undefined) return '—';
  return Number(value).toLocaleString('en-US', { maximumFractionDigits: digits });
}

export function percent(rate) {
  if (rate === null || rate === undefined) return '—';
  return `${(Number(rate) * 100).toFixed(2)} %`;
}

export function msText(ms) {
  if (ms === null || ms === undefined) return '—';
  if (Math.abs(ms) < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}
