// main.js: starts the page: restores or asks for a login, routes #/screen/argument to a view,
// keeps the header (user, role, live indicator) and the live stream.
import { h, replace, errorBox } from './dom.js';
import { session, login, logout, whoAmI, onUnauthorized } from './api.js';
import { startStream, stopStream, on as onStream, streamStats } from './stream.js';
import * as fleet from './views/fleet.js';
import * as chargePoint from './views/charge_point.js';
import * as sessions from './views/sessions.js';
import * as sessionDetail from './views/session_detail.js';
import * as energy from './views/energy.js';
import * as quality from './views/quality.js';
import * as pipeline from './views/pipeline.js';

// route name -> [view module, nav entry it belongs to]
const ROUTES = {
  fleet: [fleet, 'fleet'],
  cp: [chargePoint, 'fleet'],
  sessions: [sessions, 'sessions'],
  session: [sessionDetail, 'sessions'],
  energy: [energy, 'energy'],
  quality: [quality, 'quality'],
  pipeline: [pipeline, 'pipeline'],
};

const main = document.getElementById('main');
let disposeView = null;
let changesHandler = null;

function parseHash() {
  const parts = location.hash.replace(/^#\/?/, '').split('/');
  return { name: parts[0] || 'fleet', arg: parts.length > 1 ? decodeURIComponent(parts.slice(1).join('/')) : null };
}

function showHeader(loggedIn) {
  document.getElementById('nav').hidden = !loggedIn;
  document.getElementById('who').hidden = !loggedIn;
  document.getElementById('user-name').textContent = loggedIn ? session.name : '';
  document.getElementById('user-role').textContent = loggedIn ? session.role : '';
  document.getElementById('user-role').setAttribute('aria-label', loggedIn ? `role ${session.role}` : 'role');
}

function disposeCurrent() {
  if (disposeView) { try { disposeView(); } catch (e) { console.error(e); } }
  disposeView = null;
  changesHandler = null;
}

function route() {
  if (!session.name) { showLogin(); return; }
  disposeCurrent();
  const { name, arg } = parseHash();
  const [view, navName] = ROUTES[name] || ROUTES.fleet;
  for (const a of document.querySelectorAll('#nav a')) {
    const active = a.dataset.route === navName;
    a.classList.toggle('active', active);
    if (active) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  }
  main.replaceChildren();
  const mounted = view.mount(main, arg) || {};
  disposeView = mounted.dispose || null;
  changesHandler = mounted.onChanges || null;
}

function showLogin(message) {
  disposeCurrent();
  stopStream();
  showHeader(false);
  const nameInput = h('input', { id: 'login-name', name: 'name', autocomplete: 'username', required: true });
  const passwordInput = h('input', { id: 'login-password', name: 'password', type: 'password',
    autocomplete: 'current-password', required: true });
  const status = h('div', { id: 'login-error', 'aria-live': 'assertive' }, message ? errorBox(message) : null);
  const submit = h('button', { type: 'submit', id: 'login-submit' }, 'Log in');
  const form = h('form', {
    onsubmit: async (event) => {
      event.preventDefault();
      submit.disabled = true;
      replace(status);
      try {
        await login(nameInput.value.trim(), passwordInput.value);
        passwordInput.value = '';
        enter();
      } catch (e) {
        const text = e.status === 401 ? 'Wrong name or password.'
          : e.status === 429 ? 'Too many failed logins: wait a moment and try again.'
            : `Login failed: ${e.message}`;
        replace(status, errorBox(text));
        submit.disabled = false;
        passwordInput.focus();
      }
    },
  },
  h('label', { for: 'login-name' }, 'Name', nameInput),
  h('label', { for: 'login-password' }, 'Password', passwordInput),
  submit, status);
  replace(main, h('section', { class: 'login panel', 'aria-labelledby': 'login-title' },
    h('h1', { id: 'login-title' }, 'Log in to ocppgw'), form));
  nameInput.focus();
}

function enter() {
  showHeader(true);
  startStream();
  // Changing the hash routes through hashchange; route here only when it stays as it is.
  if (!location.hash || location.hash === '#/login') location.hash = '#/fleet'; else route();
}

// While the stream is down, refresh what is on screen now and then, so the page stays useful
// (the stream brings precise changes once it is back).
setInterval(() => {
  if (session.name && !streamStats.live && changesHandler) {
    changesHandler({ charge_points: [], sessions: true, quality: true, poll: true });
  }
}, 10000);

onStream('changes', (data) => { if (changesHandler) changesHandler(data); });
onStream('reconnected', () => {
  if (changesHandler) changesHandler({ charge_points: '*', sessions: true, quality: true });
});

onUnauthorized(() => {
  if (session.name) {
    session.name = null;
    showLogin('Your session has ended: log in again.');
  }
});

document.getElementById('logout').addEventListener('click', async () => {
  await logout();
  location.hash = '#/login';
  showLogin();
});

window.addEventListener('hashchange', () => { if (session.name) route(); });

(async () => {
  try {
    if (await whoAmI()) enter(); else showLogin();
  } catch (e) {
    showLogin(`The gateway did not answer: ${e.message}`);
  }
})();
