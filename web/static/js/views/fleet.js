// views/fleet.js: the fleet overview. The counts come from GET /api/v1/fleet (one request); the
// table shows one server page of GET /api/v1/charge-points at a time (100 rows, in id order),
// with the filters and the id search passed to the server, next/previous by cursor. Whatever
// the fleet's size, a screen costs two requests. The stream's changes refetch the page when a
// changed id may be on it and the counts, each at most every so often.
import { h, replace, errorBox } from '../dom.js';
import { enc } from '../api.js';
import { ageText, ocppStatusName } from '../format.js';
import { CONNECTOR_STATUSES, OCPP_VERSIONS, summarize, fetchPage, fetchCounts, mayBeOnPage, throttle }
  from '../fleet_model.js';
import { statusChip } from './chips.js';

const PAGE_SIZE = 100;
const PAGE_REFRESH_MS = 1000;
const COUNTS_REFRESH_MS = 2000;
const SEARCH_DEBOUNCE_MS = 300;
// The server orders by id; other orders sort the rows of the page shown, and say so.
const SORTS = {
  id: (a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  online: (a, b) => Number(b.online) - Number(a.online),
  version: (a, b) => String(a.version || '').localeCompare(String(b.version || '')),
  heartbeat: (a, b) => Date.parse(b.heartbeat || 0) - Date.parse(a.heartbeat || 0),
  vendor: (a, b) => String(a.vendor || '').localeCompare(String(b.vendor || '')),
};
const SORT_LABELS = { id: 'charge point', online: 'connection', version: 'OCPP version',
  heartbeat: 'last heartbeat', vendor: 'vendor / model' };

// Kept across visits of the screen.
const ui = { online: '', status: '', version: '', q: '', sort: 'id', dir: 1 };

const countId = (status) => `count-${ocppStatusName(status).toLowerCase()}`;

function mark(name) {
  performance.clearMarks(name);
  performance.mark(name);
}

export function mount(main) {
  mark('fleet-mount');
  let disposed = false;
  let firstPageMarked = false;
  let countsMarked = false;
  let filterPending = false;   // a filter changed: mark when its first page is on screen
  // One entry per page up to the current one: the cursor that reads it and the last id of the
  // page before it (null for the first page).
  let pages = [{ cursor: null, after: null }];
  let page = null;             // the current server page {items, next_cursor}
  let counts = null;           // the last GET /api/v1/fleet

  const countsEl = h('div', { class: 'counts', id: 'fleet-counts', 'aria-live': 'polite' });
  const onlineSelect = h('select', { id: 'filter-online', 'aria-label': 'Filter by connection' },
    h('option', { value: '' }, 'online or offline'),
    h('option', { value: 'true' }, 'online'), h('option', { value: 'false' }, 'offline'));
  const statusSelect = h('select', { id: 'filter-status', 'aria-label': 'Filter by connector status' },
    h('option', { value: '' }, 'any status'),
    CONNECTOR_STATUSES.map((s) => h('option', { value: s }, `a connector ${ocppStatusName(s)}`)));
  const versionSelect = h('select', { id: 'filter-version', 'aria-label': 'Filter by OCPP version' },
    h('option', { value: '' }, 'any version'),
    OCPP_VERSIONS.map((v) => h('option', { value: v }, `OCPP ${v}`)));
  const searchInput = h('input', { id: 'filter-search', type: 'search', placeholder: 'part of a charge point id',
    maxlength: 64, 'aria-label': 'Search by charge point id' });
  onlineSelect.value = ui.online; statusSelect.value = ui.status; versionSelect.value = ui.version;
  searchInput.value = ui.q;
  const tableHolder = h('div', { id: 'fleet-table' });
  const pager = h('div', { class: 'pager' });
  const errorHolder = h('div');

  const filtered = () => !!(ui.online || ui.status || ui.version || ui.q);

  function onFilter() {
    ui.online = onlineSelect.value; ui.status = statusSelect.value; ui.version = versionSelect.value;
    ui.q = searchInput.value.trim();
    pages = [{ cursor: null, after: null }];
    filterPending = true;
    mark('fleet-filter-start');
    loadPage();
  }
  onlineSelect.addEventListener('change', onFilter);
  statusSelect.addEventListener('change', onFilter);
  versionSelect.addEventListener('change', onFilter);
  let searchTimer = null;
  searchInput.addEventListener('input', () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(onFilter, SEARCH_DEBOUNCE_MS);
  });

  // A count button shows only what it counts: it sets one filter and clears the others.
  function showOnly(filters) {
    onlineSelect.value = filters.online || ''; statusSelect.value = filters.status || '';
    versionSelect.value = filters.version || ''; searchInput.value = '';
    onFilter();
  }

  replace(main,
    h('h1', {}, 'Fleet'),
    countsEl,
    h('div', { class: 'toolbar', role: 'search' },
      h('label', {}, 'Connection', onlineSelect), h('label', {}, 'Status', statusSelect),
      h('label', {}, 'Version', versionSelect), h('label', {}, 'Search', searchInput)),
    errorHolder, tableHolder, pager);

  function renderCounts() {
    const cps = counts.charge_points;
    const button = (label, value, filters, id) => h('button', {
      type: 'button', class: 'count secondary', id, 'aria-label': `${label}: ${value}, show only these`,
      onclick: () => showOnly(filters),
    }, label, h('strong', {}, String(value)));
    const byVersion = cps.by_version || {};
    const connectors = Object.entries(counts.connectors || {})
      .filter(([status]) => CONNECTOR_STATUSES.includes(status))
      .sort((a, b) => b[1] - a[1]);
    replace(countsEl,
      button('Charge points', cps.total, {}, 'count-total'),
      button('Online', cps.online, { online: 'true' }, 'count-online'),
      button('Offline', cps.offline, { online: 'false' }, 'count-offline'),
      OCPP_VERSIONS.filter((v) => byVersion[v]).map((v) =>
        button(`OCPP ${v}`, byVersion[v], { version: v }, `count-ocpp${v.replace(/\./g, '')}`)),
      connectors.map(([status, n]) => button(ocppStatusName(status), n, { status }, countId(status))));
    if (!countsMarked) { countsMarked = true; mark('fleet-counts'); }
  }

  const countsRefresh = throttle(async () => {
    try {
      const answer = await fetchCounts();
      if (disposed) return;
      counts = answer;
      renderCounts();
      if (page) renderPager(page.items.length);
    } catch (e) {
      if (!disposed) replace(errorHolder, errorBox(`Could not load the fleet counts: ${e.message}`));
    }
  }, COUNTS_REFRESH_MS);

  function sortHeader(label, key, cls = null) {
    const active = ui.sort === key;
    return h('th', { scope: 'col', class: cls, 'aria-sort': active ? (ui.dir > 0 ? 'ascending' : 'descending') : 'none' },
      h('button', { type: 'button', class: 'sort',
        'aria-label': key === 'id' ? `Sort by ${label}` : `Sort this page by ${label}`,
        onclick: () => {
          if (ui.sort === key) ui.dir = -ui.dir; else { ui.sort = key; ui.dir = 1; }
          renderPage();
        } }, label));
  }

  function row(cp) {
    return h('tr', { dataset: { id: cp.id } },
      h('td', {}, h('a', { href: `#/cp/${enc(cp.id)}` }, cp.id)),
      h('td', {}, h('span', { class: `chip ${cp.online ? 'online' : 'offline'}` }, cp.online ? 'online' : 'offline')),
      h('td', {}, cp.version || '—'),
      h('td', { class: 'hide-narrow' }, cp.profile ?? '—'),
      h('td', { class: 'hide-narrow' }, [cp.vendor, cp.model].filter(Boolean).join(' / ') || '—'),
      h('td', { class: 'hide-narrow' }, cp.firmware || '—'),
      h('td', { class: 'nowrap age', dataset: { ts: cp.heartbeat || '' } }, ageText(cp.heartbeat)),
      h('td', {}, cp.connectors.length
        ? cp.connectors.map((c) => statusChip(c.status, c.label)) : h('span', { class: 'muted' }, 'none reported')));
  }

  function renderPage() {
    if (disposed || !page) return;
    const sorter = SORTS[ui.sort] || SORTS.id;
    // Id order is the server's: ascending needs no sort; anything else sorts this page only.
    const rows = page.items.map(summarize).sort((a, b) => ui.dir * sorter(a, b) || SORTS.id(a, b));
    replace(tableHolder,
      h('div', { class: 'table-wrap' }, h('table', { 'aria-label': 'Charge points' },
        h('thead', {}, h('tr', {},
          sortHeader('Charge point', 'id'), sortHeader('Connection', 'online'), sortHeader('OCPP', 'version'),
          h('th', { scope: 'col', class: 'hide-narrow' }, 'Security profile'),
          sortHeader('Vendor / model', 'vendor', 'hide-narrow'),
          h('th', { scope: 'col', class: 'hide-narrow' }, 'Firmware'),
          sortHeader('Last heartbeat', 'heartbeat'),
          h('th', { scope: 'col' }, 'Connectors'))),
        h('tbody', {}, rows.length ? rows.map(row)
          : h('tr', {}, h('td', { colspan: 8, class: 'muted' },
            filtered() ? 'No charge point matches.' : 'No charge points.'))))));
    renderPager(rows.length);
    if (!firstPageMarked) { firstPageMarked = true; mark('fleet-first-page'); }
    if (filterPending) {
      filterPending = false;
      mark('fleet-filter-done');
      performance.clearMeasures('fleet-filter');
      performance.measure('fleet-filter', 'fleet-filter-start', 'fleet-filter-done');
    }
  }

  // Page number, rows shown, order; unfiltered, the counts tell how many pages there are.
  function renderPager(shown) {
    const pageNo = pages.length;
    const first = (pageNo - 1) * PAGE_SIZE + 1;
    const range = shown ? `rows ${first}–${first + shown - 1}` : 'no rows';
    const of = !filtered() && counts ? ` of ${Math.max(1, Math.ceil(counts.charge_points.total / PAGE_SIZE))}` : '';
    const order = ui.sort === 'id' && ui.dir === 1 ? 'in id order'
      : `this page sorted by ${SORT_LABELS[ui.sort]}${ui.dir > 0 ? '' : ' (reversed)'}`;
    replace(pager,
      h('button', { type: 'button', class: 'secondary', disabled: pageNo === 1, 'aria-label': 'Previous page',
        onclick: () => { pages.pop(); loadPage(); } }, '‹ Previous'),
      h('span', { class: 'muted', id: 'fleet-page-info' },
        `page ${pageNo}${of} · ${range}${filtered() ? ' matching' : ''} · ${order}`),
      h('button', { type: 'button', class: 'secondary', disabled: !page.next_cursor, 'aria-label': 'Next page',
        onclick: () => {
          pages.push({ cursor: page.next_cursor, after: page.items[page.items.length - 1].id });
          loadPage();
        } }, 'Next ›'));
  }

  // The current page (a newer load wins over an older one still under way).
  let loadSeq = 0;
  async function loadPage() {
    const mine = ++loadSeq;
    const { cursor } = pages[pages.length - 1];
    try {
      const answer = await fetchPage(ui, cursor, PAGE_SIZE);
      if (disposed || mine !== loadSeq) return;
      page = answer;
      replace(errorHolder);
      renderPage();
    } catch (e) {
      if (!disposed && mine === loadSeq) replace(errorHolder, errorBox(`Could not load charge points: ${e.message}`));
    }
  }
  const pageRefresh = throttle(loadPage, PAGE_REFRESH_MS);

  const ageTimer = setInterval(() => {
    for (const cell of tableHolder.querySelectorAll('td.age')) cell.textContent = ageText(cell.dataset.ts || null);
  }, 5000);

  loadPage();
  countsRefresh.request();

  return {
    dispose() {
      disposed = true;
      clearInterval(ageTimer); clearTimeout(searchTimer);
      pageRefresh.cancel(); countsRefresh.cancel();
    },
    onChanges(change) {
      const ids = change.charge_points;
      if (change.poll || ids === '*') {
        pageRefresh.request();
        countsRefresh.request();
        return;
      }
      if (!Array.isArray(ids) || !ids.length) return;
      countsRefresh.request();
      const after = pages[pages.length - 1].after;
      if (ids.some((id) => mayBeOnPage(String(id), page, after, ui))) pageRefresh.request();
    },
  };
}
