// api.js: every request the page makes goes through here. The session cookie (HttpOnly,
// SameSite=Strict) authenticates; state-changing requests also carry the CSRF token, which the
// login answer or GET /api/v1/session hands back (a reloaded page gets it from the latter).

export const session = { name: null, role: null, csrf: null };
const listeners = { unauthorized: [] };

export function onUnauthorized(fn) { listeners.unauthorized.push(fn); }

export class ApiError extends Error {
  constructor(status, body) {
    super((body && (body.error || body.description)) || `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

const ROLE_RANK = { viewer: 1, operator: 2, admin: 3 };
export function hasRole(role) { return (ROLE_RANK[session.role] || 0) >= ROLE_RANK[role]; }

// JSON of one request; throws ApiError on a non-2xx answer (401 also tells the app to show
// the login, except for the login itself).
export async function api(method, path, body) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && session.csrf) headers['X-CSRF-Token'] = session.csrf;
  let response;
  try {
    response = await fetch(path, {
      method, headers, credentials: 'same-origin', cache: 'no-store',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    throw new ApiError(0, { error: `the gateway did not answer (${e.message})` });
  }
  const text = await response.text();
  let parsed = null;
  try { parsed = text ? JSON.parse(text) : null; } catch { parsed = { error: text }; }
  if (!response.ok) {
    if (response.status === 401 && path !== '/api/v1/session') {
      for (const fn of listeners.unauthorized) fn();
    }
    throw new ApiError(response.status, parsed);
  }
  return parsed;
}

export const get = (path) => api('GET', path);
export const post = (path, body) => api('POST', path, body);

export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined && v !== '') q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : '';
}

export const enc = encodeURIComponent;

export async function login(name, password) {
  const answer = await api('POST', '/api/v1/session', { name, password });
  Object.assign(session, { name: answer.name, role: answer.role, csrf: answer.csrf_token });
  return answer;
}

// Who is logged in (null when nobody): a reload keeps the cookie, so this restores the session.
export async function whoAmI() {
  try {
    const answer = await get('/api/v1/session');
    Object.assign(session, { name: answer.name, role: answer.role, csrf: answer.csrf_token });
    return answer;
  } catch (e) {
    if (e.status === 401) return null;
    throw e;
  }
}

export async function logout() {
  try { await api('DELETE', '/api/v1/session'); } catch { /* the session may have ended already */ }
  Object.assign(session, { name: null, role: null, csrf: null });
}
