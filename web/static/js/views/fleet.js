// views/fleet.js: the fleet overview. Without filters and in id order the table pages through
// the server's cursor pages (50 rows: one request, whatever the fleet's size); filters, search
// and other orders work on the fleet model (fleet_model.js), which also gives the counts.
import { h, replace, errorBox } from '../dom.js';
import { get, enc } from '../api.js';
import { ageText } from '../format.js';
import { fleet, scan, scheduleScan, refreshIds, counts, summarize, subscribe } from '../fleet_model.js';
import { statusChip } from './chips.js';

const PAGE_SIZE = 50;
const MANY_IDS = 50;  // more changed ids than this: walk the fleet again instead of fetching each
const STATUS_FILTERS = ['Available', 'Preparing', 'Charging', 'SuspendedEV', 'SuspendedEVSE',
  'Finishing', 'Reserved', 'Unavailable', 'Faulted', 'Occupied'];
const SORTS = {
  id: (a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  online: (a, b) => Number(b.online) - Number(a.online),
  version: (a, b) => String(a.version || '').localeCompare(String(b.version || '')),
  heartbeat: (a, b) => Date.parse(b.heartbeat || 0) - Date.parse(a.heartbeat || 0),
  vendor: (a, b) => String(a.vendor || '').localeCompare(String(b.vendor || '')),
};

// Kept across visits of the screen.
const ui = { status: '', version: '', search: '', sort: 'id', dir: 1 };

export function mount(main) {
  performance.clearMarks('fleet-mount');
  performance.mark('fleet-mount');
  let disposed = false;
  let firstPageMarked = false;
  let countsMarked = false;
  // Server paging (default mode): cursors of the pages before the current one.
  let cursorStack = [null];
  let serverPage = null;   // {items, next_cursor}
  let clientPage = 0;      // page number in client mode

  const countsEl = h('div', { class: 'counts', id: 'fleet-counts', 'aria-live': 'polite' });
  const scanNote = h('p', { class: 'muted', id: 'fleet-scan-note' });
  const statusSelect = h('select', { id: 'filter-status', 'aria-label': 'Filter by status' },
    h('option', { value: '' }, 'any status'),
    h('option', { value: 'online' }, 'online'), h('option', { value: 'offline' }, 'offline'),
    STATUS_FILTERS.map((s) => h('option', { value: s }, `a connector ${s}`)));
  const versionSelect = h('select', { id: 'filter-version', 'aria-label': 'Filter by OCPP version' },
    h('option', { value: '' }, 'any version'), h('option', { value: '1.6' }, 'OCPP 1.6'),
    h('option', { value: '2.0.1' }, 'OCPP 2.0.1'));
  const searchInput = h('input', { id: 'filter-search', type: 'search', placeholder: 'charge point id',
    'aria-label': 'Search by charge point id' });
  statusSelect.value = ui.status; versionSelect.value = ui.version; searchInput.value = ui.search;
  const tableHolder = h('div', { id: 'fleet-table' });
  const pager = h('div', { class: 'pager' });
  const errorHolder = h('div');

  const clientMode = () => !!(ui.status || ui.version || ui.search || ui.sort !== 'id' || ui.dir !== 1);

  function onFilter() {
    ui.status = statusSelect.value; ui.version = versionSelect.value; ui.search = searchInput.value.trim();
    clientPage = 0;
    cursorStack = [null];
    if (clientMode()) renderTable(); else loadServerPage();
  }
  statusSelect.addEventListener('change', onFilter);
  versionSelect.addEventListener('change', onFilter);
  let searchTimer = null;
  searchInput.addEventListener('input', () => { clearTimeout(searchTimer); searchTimer = setTimeout(onFilter, 200); });

  replace(main,
    h('h1', {}, 'Fleet'),
    countsEl, scanNote,
    h('div', { class: 'toolbar', role: 'search' },
      h('label', {}, 'Status', statusSelect), h('label', {}, 'Version', versionSelect),
      h('label', {}, 'Search', searchInput)),
    errorHolder, tableHolder, pager);

  function renderCounts() {
    if (!fleet.complete) {
      replace(scanNote, fleet.scanning ? `Counting the fleet… ${fleet.loadedDuringScan} charge points so far` : '');
      return;
    }
    const c = counts();
    const button = (label, value, filterValue, id) => h('button', {
      type: 'button', class: 'count secondary', id, 'aria-label': `${label}: ${value}, show only these`,
      onclick: () => { statusSelect.value = filterValue; onFilter(); },
    }, label, h('strong', {}, String(value)));
    replace(countsEl,
      button('Charge points', c.total, '', 'count-total'),
      button('Online', c.online, 'online', 'count-online'),
      button('Offline', c.offline, 'offline', 'count-offline'),
      [...c.byStatus.entries()].sort((a, b) => b[1] - a[1]).map(([status, n]) =>
        button(status, n, status, `count-${status.toLowerCase()}`)));
    replace(scanNote, fleet.scanning ? 'Updating counts…' : '');
    if (!countsMarked) {
      countsMarked = true;
      performance.clearMarks('fleet-counts');
      performance.mark('fleet-counts');
    }
  }

  function matches(cp) {
    if (ui.version && cp.version !== ui.version) return false;
    if (ui.search && !cp.id.toLowerCase().includes(ui.search.toLowerCase())) return false;
    if (ui.status === 'online' && !cp.online) return false;
    if (ui.status === 'offline' && cp.online) return false;
    if (ui.status && ui.status !== 'online' && ui.status !== 'offline'
      && !cp.connectors.some((c) => c.status === ui.status)) return false;
    return true;
  }

  function sortHeader(label, key, cls = null) {
    const active = ui.sort === key;
    return h('th', { scope: 'col', class: cls, 'aria-sort': active ? (ui.dir > 0 ? 'ascending' : 'descending') : 'none' },
      h('button', { type: 'button', class: 'sort', 'aria-label': `Sort by ${label}`,
        onclick: () => {
          if (ui.sort === key) ui.dir = -ui.dir; else { ui.sort = key; ui.dir = 1; }
          clientPage = 0; cursorStack = [null];
          if (clientMode()) renderTable(); else loadServerPage();
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

  function renderRows(rows, note) {
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
          : h('tr', {}, h('td', { colspan: 8, class: 'muted' }, note || 'No charge points.'))))));
  }

  function renderTable() {
    if (disposed) return;
    if (!clientMode()) { renderServerPage(); return; }
    if (!fleet.complete) {
      renderRows([], `Loading the fleet to filter it… ${fleet.loadedDuringScan} so far`);
      replace(pager);
      return;
    }
    const sorter = SORTS[ui.sort] || SORTS.id;
    const all = [...fleet.byId.values()].filter(matches).sort((a, b) => ui.dir * sorter(a, b) || SORTS.id(a, b));
    const pages = Math.max(1, Math.ceil(all.length / PAGE_SIZE));
    clientPage = Math.min(clientPage, pages - 1);
    renderRows(all.slice(clientPage * PAGE_SIZE, (clientPage + 1) * PAGE_SIZE), 'No charge point matches.');
    replace(pager,
      h('button', { type: 'button', class: 'secondary', disabled: clientPage === 0, 'aria-label': 'Previous page',
        onclick: () => { clientPage -= 1; renderTable(); } }, '‹ Previous'),
      h('span', { class: 'muted', id: 'fleet-page-info' }, `${all.length} matching · page ${clientPage + 1} of ${pages}`),
      h('button', { type: 'button', class: 'secondary', disabled: clientPage >= pages - 1, 'aria-label': 'Next page',
        onclick: () => { clientPage += 1; renderTable(); } }, 'Next ›'));
  }

  function renderServerPage() {
    if (!serverPage) return;
    renderRows(serverPage.items.map(summarize));
    const pageNo = cursorStack.length;
    replace(pager,
      h('button', { type: 'button', class: 'secondary', disabled: pageNo === 1, 'aria-label': 'Previous page',
        onclick: () => { cursorStack.pop(); loadServerPage(); } }, '‹ Previous'),
      h('span', { class: 'muted', id: 'fleet-page-info' },
        `page ${pageNo}${fleet.complete ? ` of ${Math.max(1, Math.ceil(fleet.byId.size / PAGE_SIZE))}` : ''}`),
      h('button', { type: 'button', class: 'secondary', disabled: !serverPage.next_cursor, 'aria-label': 'Next page',
        onclick: () => { cursorStack.push(serverPage.next_cursor); loadServerPage(); } }, 'Next ›'));
    if (!firstPageMarked) {
      firstPageMarked = true;
      performance.clearMarks('fleet-first-page');
      performance.mark('fleet-first-page');
    }
  }

  let loadSeq = 0;
  async function loadServerPage() {
    const mine = ++loadSeq;
    const cursor = cursorStack[cursorStack.length - 1];
    try {
      const page = await get(`/api/v1/charge-points?limit=${PAGE_SIZE}${cursor ? `&cursor=${enc(cursor)}` : ''}`);
      if (disposed || mine !== loadSeq || clientMode()) return;
      serverPage = page;
      replace(errorHolder);
      renderServerPage();
    } catch (e) {
      if (!disposed) replace(errorHolder, errorBox(`Could not load charge points: ${e.message}`));
    }
  }

  // Could a changed id be on the current server page? (ids sort as strings)
  function onCurrentPage(id) {
    if (!serverPage) return true;
    const items = serverPage.items;
    if (!items.length || !serverPage.next_cursor) return true;  // last page: new ids land here
    const first = cursorStack.length === 1 ? '' : items[0].id;
    return id >= first && id <= items[items.length - 1].id;
  }

  const unsubscribe = subscribe(() => {
    if (disposed) return;
    renderCounts();
    if (clientMode()) renderTable(); else renderServerPage();  // "page 1 of N" once N is known
  });
  const ageTimer = setInterval(() => {
    for (const cell of tableHolder.querySelectorAll('td.age')) cell.textContent = ageText(cell.dataset.ts || null);
  }, 5000);

  renderCounts();
  if (clientMode()) renderTable(); else loadServerPage();
  // Walk the fleet for the counts: now on first visit, or again if the model is old.
  if (!fleet.complete || Date.now() - fleet.lastScanStarted > 30000) scan(); else scheduleScan();

  return {
    dispose() { disposed = true; unsubscribe(); clearInterval(ageTimer); },
    async onChanges(change) {
      const ids = change.charge_points;
      if (change.poll) { if (!clientMode()) loadServerPage(); scheduleScan(); return; }
      if (ids === '*' || (Array.isArray(ids) && ids.length > MANY_IDS)) {
        if (!clientMode()) loadServerPage();
        scheduleScan();
        return;
      }
      if (!Array.isArray(ids) || !ids.length) return;
      await refreshIds(ids);
      if (!disposed && !clientMode() && ids.some(onCurrentPage)) loadServerPage();
    },
  };
}
