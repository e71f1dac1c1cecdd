// tests/browser/page.test.cjs: the operator status page in real Chromium against the real
// gateway, driven by ocpp-rpc charge points. Each test asserts what the page shows (text,
// counts, element state) and saves a screenshot per step under tests/browser/artifacts/.
// The tests run in order and share one gateway: a charge point connects, charges, is stopped
// from the page, sends a bad reading; then roles, a gateway restart and accessibility.
'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const { Setup, ACCOUNTS, sleep, cspProblems } = require('./lib/harness.cjs');
const { BIN } = require('../integration/node/gateway.cjs');

const CP_ID = 'BT-CP-1';
const TAG = 'DRIVER-1';
let setup;
let cp;          // the ocpp-rpc charge point
let txId = null; // its open transaction
let operatorPage;
const now = () => new Date().toISOString();
const waitLive = (page, timeout = 15000) => waitText(page, '#live', /^live$/, timeout);

// Text of a selector once it matches `pattern` (polls; the page updates by itself).
async function waitText(page, selector, pattern, timeout = 10000) {
  await page.waitForFunction(([sel, src, flags]) => {
    const el = document.querySelector(sel);
    return el && new RegExp(src, flags).test(el.textContent);
  }, [selector, pattern.source, pattern.flags], { timeout });
  return page.textContent(selector);
}

// The ids the fleet table shows once they are `ids` (in this order; polls).
async function waitRows(page, ids, timeout = 10000) {
  await page.waitForFunction((want) => {
    const got = [...document.querySelectorAll('#fleet-table tbody tr[data-id]')].map((tr) => tr.dataset.id);
    return JSON.stringify(got) === JSON.stringify(want);
  }, ids, { timeout }).catch(async (e) => {
    const got = await page.$$eval('#fleet-table tbody tr', (trs) => trs.map((tr) => tr.dataset.id || tr.textContent));
    throw new Error(`fleet rows ${JSON.stringify(got)}, wanted ${JSON.stringify(ids)}: ${e.message}`);
  });
  return page.locator('#fleet-table tbody tr').count();
}

before(async () => {
  setup = await new Setup().start({ name: 'page' });
  execFileSync(BIN, ['--data-dir', setup.dataDir, 'tokens', 'add', TAG, '--status', 'Accepted'], { stdio: 'pipe' });
});
after(async () => { if (setup) await setup.stop(); });

test('1. login: a wrong password shows an error, the right one the overview and the role', async () => {
  const page = await setup.newPage();
  await page.goto(`${setup.base}/ui/`);
  // Nothing readable before login: the login form only, no navigation.
  await page.waitForSelector('#login-name');
  assert.equal(await page.isVisible('#nav'), false);
  await setup.shot(page, '01-login-form');
  await page.fill('#login-name', ACCOUNTS.operator.name);
  await page.fill('#login-password', 'not the password at all');
  await page.click('#login-submit');
  assert.match(await waitText(page, '#login-error', /Wrong name or password/), /Wrong name or password/);
  await setup.shot(page, '01-login-wrong-password');
  await page.fill('#login-password', ACCOUNTS.operator.password);
  await page.click('#login-submit');
  await page.waitForSelector('h1:text("Fleet")');
  assert.equal(await page.textContent('#user-name'), ACCOUNTS.operator.name);
  assert.equal(await page.textContent('#user-role'), 'operator');
  assert.equal(await page.isVisible('#logout'), true);
  await waitText(page, '#fleet-page-info', /page 1/);
  await setup.shot(page, '01-login-overview');
  assert.deepEqual(cspProblems(page), []);
  operatorPage = page;  // stays logged in for the next tests
});

test('2. a charge point connects and appears online without reload', async () => {
  const page = operatorPage;
  await waitLive(page);
  const before = Number(await waitText(page, '#count-total strong', /\d+/));
  cp = await setup.chargePoint(CP_ID, {
    RemoteStopTransaction: ({ params }) => {
      // Stop as a real charge point would: answer, then send StopTransaction.
      setTimeout(() => cp.call('StopTransaction', { transactionId: params.transactionId, idTag: TAG,
        meterStop: 4200, timestamp: now(), reason: 'Remote' }).catch(() => {}), 300);
      return { status: 'Accepted' };
    },
  });
  await cp.call('BootNotification', { chargePointVendor: 'Acme', chargePointModel: 'AC22', firmwareVersion: 'fw-7' });
  for (const connectorId of [1, 2]) {
    await cp.call('StatusNotification', { connectorId, errorCode: 'NoError', status: 'Available', timestamp: now() });
  }
  const row = `tr[data-id="${CP_ID}"]`;
  await page.waitForSelector(row, { timeout: 10000 });
  assert.equal(await waitText(page, `${row} td:nth-child(2)`, /online/), 'online');
  assert.match(await waitText(page, `${row} td:nth-child(8)`, /1: Available.*2: Available/), /1: Available/);
  assert.match(await page.textContent(`${row} td:nth-child(5)`), /Acme \/ AC22/);
  assert.equal(await page.textContent(`${row} td:nth-child(3)`), '1.6');
  assert.equal(Number(await waitText(page, '#count-total strong', new RegExp(`^${before + 1}$`))), before + 1);
  assert.equal(Number(await page.textContent('#count-available strong')), 2);
  await setup.shot(page, '02-charge-point-online');
});

test('2b. status, connection and version filters and the id search narrow the table on the server', async () => {
  const page = operatorPage;
  const boot = async (id, status) => {
    const other = await setup.chargePoint(id);
    await other.call('BootNotification', { chargePointVendor: 'Acme', chargePointModel: 'DC50' });
    await other.call('StatusNotification', { connectorId: 1, errorCode: status === 'Faulted' ? 'GroundFailure' : 'NoError',
      status, timestamp: now() });
    return other;
  };
  await boot('BT-CP-2', 'Faulted');
  const other = await boot('ZZ-OTHER-3', 'Available');
  assert.equal(await waitRows(page, [CP_ID, 'BT-CP-2', 'ZZ-OTHER-3']), 3);
  assert.equal(Number(await waitText(page, '#count-faulted strong', /^1$/)), 1);
  assert.equal(Number(await waitText(page, '#count-available strong', /^3$/)), 3);
  const listRequests = [];
  const onRequest = (r) => { if (r.url().includes('/api/v1/charge-points?')) listRequests.push(new URL(r.url()).search); };
  page.on('request', onRequest);

  // A connector status: one request with the filter, the table narrows to what matches.
  await page.selectOption('#filter-status', 'FAULTED');
  assert.equal(await waitRows(page, ['BT-CP-2']), 1);
  assert.match(await page.textContent('tr[data-id="BT-CP-2"] td:nth-child(8)'), /1: Faulted/);
  assert.match(await page.textContent('#fleet-page-info'), /page 1 · rows 1–1 matching/);
  assert.ok(listRequests.some((q) => /[?&]status=FAULTED(&|$)/.test(q)), `requests ${listRequests}`);
  await setup.shot(page, '02b-filter-faulted');
  await page.selectOption('#filter-status', 'AVAILABLE');
  assert.equal(await waitRows(page, [CP_ID, 'ZZ-OTHER-3']), 2);
  await page.selectOption('#filter-status', '');
  assert.equal(await waitRows(page, [CP_ID, 'BT-CP-2', 'ZZ-OTHER-3']), 3);

  // The id search (debounced, case-insensitive, on the server).
  listRequests.length = 0;
  await page.fill('#filter-search', 'other');
  assert.equal(await waitRows(page, ['ZZ-OTHER-3']), 1);
  assert.ok(listRequests.some((q) => /[?&]q=other(&|$)/.test(q)), `requests ${listRequests}`);
  await page.fill('#filter-search', 'bt-cp');
  assert.equal(await waitRows(page, [CP_ID, 'BT-CP-2']), 2);
  await setup.shot(page, '02b-search');
  await page.fill('#filter-search', 'no-such-id');
  await waitText(page, '#fleet-table tbody', /No charge point matches/);
  assert.equal(await page.locator('#fleet-table tbody tr[data-id]').count(), 0);
  await page.fill('#filter-search', '');
  assert.equal(await waitRows(page, [CP_ID, 'BT-CP-2', 'ZZ-OTHER-3']), 3);

  // Version: every charge point here speaks 1.6.
  await page.selectOption('#filter-version', '2.0.1');
  await waitText(page, '#fleet-table tbody', /No charge point matches/);
  await page.selectOption('#filter-version', '1.6');
  assert.equal(await waitRows(page, [CP_ID, 'BT-CP-2', 'ZZ-OTHER-3']), 3);
  await page.selectOption('#filter-version', '');

  // Offline: a charge point disconnects; the filtered page and the counts follow by themselves.
  await page.selectOption('#filter-online', 'false');
  await waitText(page, '#fleet-table tbody', /No charge point matches/);
  await other.close({ force: true });
  assert.equal(await waitRows(page, ['ZZ-OTHER-3']), 1);
  assert.equal(Number(await waitText(page, '#count-offline strong', /^1$/)), 1);
  await setup.shot(page, '02b-filter-offline');
  // A count button filters too (and clears the other filters).
  await page.click('#count-faulted');
  assert.equal(await page.inputValue('#filter-status'), 'FAULTED');
  assert.equal(await page.inputValue('#filter-online'), '');
  assert.equal(await waitRows(page, ['BT-CP-2']), 1);
  await page.click('#count-total');
  assert.equal(await waitRows(page, [CP_ID, 'BT-CP-2', 'ZZ-OTHER-3']), 3);
  assert.equal(await page.inputValue('#filter-status'), '');
  page.off('request', onRequest);
  assert.deepEqual(cspProblems(page), []);
});

test('3. a session starts and its energy grows on screen', async () => {
  const page = operatorPage;
  await page.click('#nav a[data-route="sessions"]');
  await waitText(page, '#live-count', /No session in progress/);
  await cp.call('StatusNotification', { connectorId: 1, errorCode: 'NoError', status: 'Charging', timestamp: now() });
  const start = await cp.call('StartTransaction', { connectorId: 1, idTag: TAG, meterStart: 1000, timestamp: now() });
  txId = start.transactionId;
  const reading = (wh, w) => cp.call('MeterValues', { connectorId: 1, transactionId: txId, meterValue: [{
    timestamp: now(), sampledValue: [
      { value: String(wh), measurand: 'Energy.Active.Import.Register', unit: 'Wh' },
      { value: String(w), measurand: 'Power.Active.Import', unit: 'W' }] }] });
  await reading(2000, 7400);
  const row = '#live-sessions tbody tr';
  await waitText(page, `${row} td.energy`, /^1\.000 kWh \(provisional\)$/);
  await waitText(page, `${row} td.power`, /7\.40 kW/);
  assert.equal(await page.textContent(`${row} td:nth-child(2)`), CP_ID);
  await setup.shot(page, '03-session-started');
  const rowHandle = await page.$(row);
  await sleep(1100);
  await reading(3500, 11000);
  await waitText(page, `${row} td.energy`, /^2\.500 kWh \(provisional\)$/);
  await waitText(page, `${row} td.power`, /11\.00 kW/);
  // Updated in place: the same row element, not a rebuilt table.
  assert.equal(await rowHandle.evaluate((tr) => tr.isConnected), true);
  assert.equal(await page.textContent('#live-count'), '1 in progress');
  await setup.shot(page, '03-session-energy-grew');
});

test('4. Remote stop from the page ends the session, shown completed with its final energy', async () => {
  const page = operatorPage;
  await page.goto(`${setup.base}/ui/#/cp/${CP_ID}`);
  const stopButton = `button[aria-label="Remote stop transaction ${txId}"]`;
  await page.waitForSelector(stopButton);
  await page.click(stopButton);
  await page.waitForSelector('#confirm-dialog[open]');
  assert.equal(await page.inputValue('#field-transactionId'), String(txId));
  assert.match(await page.textContent('#confirm-preview'), new RegExp(`RemoteStopTransaction \\{"transactionId":${txId}\\}`));
  await setup.shot(page, '04-remote-stop-confirm');
  await page.click('#confirm-ok');
  assert.match(await waitText(page, '#command-outcome', /RemoteStopTransaction: Accepted/), /Accepted/);
  // The session list on the same screen turns completed by itself (stream), final 3.2 kWh.
  const sessionRow = '#cp-sessions-title + div tbody tr:first-child';
  await waitText(page, `${sessionRow} td:nth-child(3)`, /completed/, 15000);
  assert.match(await page.textContent(`${sessionRow} td:nth-child(5)`), /^3\.200 kWh$/);
  assert.match(await page.textContent(`${sessionRow} td:nth-child(7)`), /REMOTE/i);
  await setup.shot(page, '04-remote-stop-outcome');
  await setup.docShot(page, 'charge-point');
  await page.click('#nav a[data-route="sessions"]');
  await waitText(page, '#live-count', /No session in progress/);
  const done = '#completed-sessions tbody tr:first-child';
  await waitText(page, `${done} td:nth-child(4)`, /completed/);
  assert.equal(await page.textContent(`${done} td:nth-child(7)`), '3.200 kWh');
  await page.click(`${done} td:first-child a`);
  await waitText(page, '#session-energy', /3\.200 kWh \(final\)/);
  assert.equal(await page.locator('svg.chart circle').count(), 4);  // start, two readings, stop
  await setup.shot(page, '04-session-detail');
});

test('5. a quarantined reading shows up in the data-quality panel', async () => {
  const page = operatorPage;
  await page.click('#nav a[data-route="quality"]');
  await waitText(page, '#conservation-state', /OK/);
  const start = await cp.call('StartTransaction', { connectorId: 2, idTag: TAG, meterStart: 500, timestamp: now() });
  // A negative energy register: analytics quarantines it (NEGATIVE_METER).
  await cp.call('MeterValues', { connectorId: 2, transactionId: start.transactionId, meterValue: [{
    timestamp: now(), sampledValue: [{ value: '-100', measurand: 'Energy.Active.Import.Register', unit: 'Wh' }] }] });
  const row = '#quarantine tbody tr:first-child';
  await waitText(page, `${row} td:nth-child(4)`, /NEGATIVE_METER/, 15000);
  assert.equal(await page.textContent(`${row} td:nth-child(3)`), CP_ID);
  assert.match(await page.textContent(`${row} td:nth-child(5)`), /negative/);
  assert.match(await waitText(page, '#quarantine-by-reason', /NEGATIVE_METER\s*1/), /NEGATIVE_METER/);
  // Conservation holds with the quarantined event counted, shown as an equation.
  assert.match(await page.textContent('#conservation-equation'), /raw (\d+) = Silver \d+ \+ duplicates \d+ \+ quarantine [1-9]/);
  assert.equal(await page.locator('#conservation.failed').count(), 0);
  // The operator may review it.
  assert.equal(await page.locator(`${row} button`).count(), 3);
  await setup.shot(page, '05-quarantine');
  await page.locator('#quarantine-title').scrollIntoViewIfNeeded();
  await page.screenshot({ path: require('node:path').join(require('./lib/harness.cjs').ARTIFACTS, 'docs-data-quality.png'), fullPage: true });
  await cp.call('StopTransaction', { transactionId: start.transactionId, meterStop: 900, timestamp: now() });
});

test('6. a viewer sees no command buttons', async () => {
  const page = await setup.newPage({ width: 390, height: 844 });  // a phone
  await setup.login(page, ACCOUNTS.viewer);
  assert.equal(await page.textContent('#user-role'), 'viewer');
  await page.goto(`${setup.base}/ui/#/cp/${CP_ID}`);
  await waitText(page, '#cp-connectors', /1: Charging.*2: Available/);
  await page.waitForSelector('#cp-sessions-title');
  // The connection history shows the live connection (analytics has it once its batch ran).
  await page.waitForSelector('#connections-title');
  await page.waitForSelector('tr[data-state="connected"]', { timeout: 10000 });
  assert.match(await page.textContent('tr[data-state="connected"]'), /connected.*ocpp1\.6/);
  assert.equal(await page.locator('#commands-title').count(), 0);
  assert.equal(await page.locator('button[data-action]').count(), 0);
  assert.equal(await page.locator('button:text("Remote stop")').count(), 0);
  await setup.shot(page, '06-viewer-charge-point');
  await page.click('#nav a[data-route="quality"]');
  await page.waitForSelector('#quarantine tbody tr');
  assert.equal(await page.locator('#quarantine button').count(), 0);
  assert.equal(await page.locator('#quarantine th:text("Review")').count(), 0);
  await setup.shot(page, '06-viewer-quality');
  // The operator's page for comparison has them.
  await operatorPage.goto(`${setup.base}/ui/#/cp/${CP_ID}`);
  await operatorPage.waitForSelector('button[data-action="Reset"]');
  assert.equal(await operatorPage.locator('button[data-action]').count(), 7);
  await page.context().close();
});

test('7. the page survives a gateway restart: indicator grey, then live again', async () => {
  const page = operatorPage;
  await page.click('#nav a[data-route="fleet"]');
  await waitText(page, '#live', /^live$/, 15000);
  await page.waitForSelector(`tr[data-id="${CP_ID}"]`);
  await setup.restart({
    onDown: async () => {
      await waitText(page, '#live', /^offline$/, 10000);
      assert.equal(await page.getAttribute('#live', 'class'), 'live-indicator offline');
      await setup.shot(page, '07-gateway-down');
    },
    downMs: 1500,
  });
  await waitText(page, '#live', /^live$/, 20000);
  assert.equal(await page.getAttribute('#live', 'class'), 'live-indicator live');
  // Still logged in (sessions survive a restart) and showing data; the charge point is offline now.
  assert.equal(await page.textContent('#user-name'), ACCOUNTS.operator.name);
  await waitText(page, `tr[data-id="${CP_ID}"] td:nth-child(2)`, /offline/, 15000);
  await setup.shot(page, '07-gateway-back');
});

test('8. accessibility: every control has a name; status chips have contrast >= 4.5:1', async () => {
  const page = operatorPage;
  const report = [];
  for (const route of ['fleet', `cp/${CP_ID}`, 'sessions', 'energy', 'quality', 'pipeline']) {
    await page.goto(`${setup.base}/ui/#/${route}`);
    await page.waitForLoadState('networkidle');
    await sleep(300);
    const unnamed = await page.evaluate(() => {
      const nameOf = (el) => {
        if (el.getAttribute('aria-label')) return el.getAttribute('aria-label');
        const by = el.getAttribute('aria-labelledby');
        if (by) return by.split(/\s+/).map((id) => document.getElementById(id)?.textContent || '').join(' ').trim();
        if (el.labels && el.labels.length) return [...el.labels].map((l) => l.textContent).join(' ').trim();
        if (el.tagName === 'BUTTON') return el.textContent.trim();
        return el.getAttribute('title') || '';
      };
      return [...document.querySelectorAll('button, input, select, textarea')]
        .filter((el) => !nameOf(el)).map((el) => el.outerHTML.slice(0, 120));
    });
    report.push([route, unnamed]);
    await setup.shot(page, `08-screen-${route.replace(/\W+/g, '-')}`);
  }
  assert.deepEqual(report.filter(([, u]) => u.length), []);
  // Contrast of every chip on the fleet and charge point screens, and of one chip per OCPP
  // status (statuses not on screen now), computed from the page's own styles.
  await page.goto(`${setup.base}/ui/#/cp/${CP_ID}`);
  await page.waitForSelector('#cp-connectors .chip');
  const contrast = await page.evaluate(() => {
    const probe = document.createElement('div');
    document.body.append(probe);
    for (const s of ['available', 'preparing', 'charging', 'suspendedev', 'suspendedevse', 'finishing', 'reserved',
      'unavailable', 'faulted', 'occupied', 'unknown']) {
      const chip = document.createElement('span');
      chip.className = `chip s-${s}`;
      chip.textContent = s;
      probe.append(chip);
    }
    const rgb = (c) => c.match(/[\d.]+/g).slice(0, 3).map(Number);
    const lum = ([r, g, b]) => {
      const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const out = [...document.querySelectorAll('.chip')].map((el) => {
      const cs = getComputedStyle(el);
      const [a, b] = [lum(rgb(cs.color)), lum(rgb(cs.backgroundColor))];
      return { text: el.textContent, ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05) };
    });
    probe.remove();
    return out;
  });
  assert.ok(contrast.length >= 14, `chips checked: ${contrast.length}`);
  const low = contrast.filter((c) => c.ratio < 4.5);
  assert.deepEqual(low, []);
  console.log(`# contrast: ${contrast.length} chips, lowest ${Math.min(...contrast.map((c) => c.ratio)).toFixed(2)}:1`);
  await setup.shot(page, '08-accessibility');
  assert.deepEqual(cspProblems(page), []);
});
