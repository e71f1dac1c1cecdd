// tests/browser/scale.test.cjs: the overview with 5,000 connected simulated charge points
// (build/sim/ocppsim, env OCPPSIM_BIN). Measures with the Performance API how long after a
// fresh load the overview shows its first page and its counts (target < 2 s; two requests:
// one server page and GET /api/v1/fleet, whatever the fleet's size) and how long a status filter
// and an id search take to show their first page (server side), checks that the online count
// reaches the whole fleet without a reload, and that the live stream keeps up (changes events
// arrive, their seq has no gaps). Bounded: about a minute and a half.
'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { Setup, ACCOUNTS, sleep, ROOT } = require('./lib/harness.cjs');

const SIM = process.env.OCPPSIM_BIN || path.join(ROOT, 'build/sim/ocppsim');
const FLEET = Number(process.env.BROWSER_SCALE_FLEET || 5000);
const CONNECT_RATE = 250;  // connections per second: the fleet is up in about 20 s
const PAGE_ROWS = 100;
let setup;
let sim;
let simLog = '';

before(async () => {
  setup = await new Setup().start({ name: 'scale' });
});
after(async () => {
  if (sim && sim.exitCode === null) sim.kill('SIGTERM');
  if (setup) await setup.stop();
});

async function numberIn(page, selector) {
  const text = await page.textContent(selector).catch(() => null);
  return text === null ? null : Number(text.replace(/[^\d]/g, ''));
}

test(`9. scale: ${FLEET} connected charge points`, { timeout: 170000 }, async () => {
  sim = spawn(SIM, ['-n', String(FLEET), '--url', setup.wsUrl, '--id-pattern', 'SCALE-{05d}',
    '--connect-rate', String(CONNECT_RATE), '--connectors', '2', '--fraction-201', '0.3', '--heartbeat', '60',
    '--meter-interval', '30', '--sessions-per-hour', '6', '--session-duration', '120',
    '-d', '110', '--drain', '0', '--threads', '1', '--progress', '10'], { stdio: ['ignore', 'ignore', 'pipe'] });
  sim.stderr.on('data', (d) => { simLog += d; });

  const page = await setup.newPage();
  // Long tasks (main thread busy > 50 ms) while the fleet connects: the page must not freeze.
  await page.addInitScript(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push(e.duration); })
      .observe({ type: 'longtask', buffered: true });
  });
  await setup.login(page, ACCOUNTS.operator);
  const rampStart = Date.now();
  // The online count follows the fleet as it connects, without a reload.
  await page.waitForFunction((n) => {
    const el = document.querySelector('#count-online strong');
    return el && Number(el.textContent) === n;
  }, FLEET, { timeout: 90000, polling: 500 }).catch(async (e) => {
    await setup.shot(page, '09-scale-fleet-timeout');
    throw new Error(`online count ${await numberIn(page, '#count-online strong')} of ${FLEET}: ${e.message}\n` +
      `ocppsim: ${simLog.slice(-1500)}`);
  });
  const onlineAfterS = (Date.now() - rampStart) / 1000;
  assert.equal(await numberIn(page, '#count-total strong'), FLEET);
  await setup.shot(page, '09-scale-fleet');

  // A fresh load of the overview with the whole fleet connected: marks are ms since navigation.
  const requests = [];
  const onRequest = (r) => {
    const u = new URL(r.url());
    if (u.pathname.startsWith('/api/v1/charge-points') || u.pathname === '/api/v1/fleet') requests.push(u.pathname);
  };
  page.on('request', onRequest);
  await page.reload();
  await page.waitForFunction(() => ['fleet-counts', 'fleet-first-page']
    .every((n) => performance.getEntriesByName(n).length > 0), null, { timeout: 30000 });
  const marks = await page.evaluate(() => Object.fromEntries(['fleet-mount', 'fleet-first-page', 'fleet-counts']
    .map((n) => [n, Math.round(performance.getEntriesByName(n)[0].startTime)])));
  page.off('request', onRequest);
  assert.equal(await page.locator('#fleet-table tbody tr').count(), PAGE_ROWS);
  assert.equal(await numberIn(page, '#count-online strong'), FLEET);
  assert.match(await page.textContent('#fleet-page-info'), new RegExp(`^page 1 of ${Math.ceil(FLEET / PAGE_ROWS)} `));
  await setup.shot(page, '09-scale-reloaded');
  await setup.docShot(page, 'fleet');

  // Next and previous page (a stack of cursors).
  const ids = () => page.$$eval('#fleet-table tbody tr[data-id]', (trs) => trs.map((tr) => tr.dataset.id));
  const page1 = await ids();
  await page.click('button[aria-label="Next page"]');
  await page.waitForFunction((after) => document.querySelector('#fleet-table tbody tr')?.dataset.id > after,
    page1[page1.length - 1]);
  assert.match(await page.textContent('#fleet-page-info'), /^page 2 of \d+ · rows 101–200 /);
  assert.equal((await ids()).length, PAGE_ROWS);
  await page.click('button[aria-label="Previous page"]');
  await page.waitForFunction((id) => document.querySelector('#fleet-table tbody tr')?.dataset.id === id, page1[0]);
  assert.equal(await page.isDisabled('button[aria-label="Previous page"]'), true);

  // A filter: from the change to its first page on screen (the 'fleet-filter' measure).
  const filterMs = async (action, check) => {
    await page.evaluate(() => performance.clearMeasures('fleet-filter'));
    const started = Date.now();
    await action();
    await page.waitForFunction(() => performance.getEntriesByName('fleet-filter', 'measure').length > 0,
      null, { timeout: 10000 });
    const wall = Date.now() - started;
    await check();
    return { ms: Math.round(await page.evaluate(() => performance.getEntriesByName('fleet-filter', 'measure')[0].duration)), wall };
  };
  // Charging (not Available: a 1.6 charge point's connector 0 counts there on the server, and
  // the table shows no chip for it). Every row shown has a connector charging.
  const charging = Number((await page.textContent('#count-charging strong').catch(() => '0')) || 0);
  const statusFilter = await filterMs(() => page.selectOption('#filter-status', 'CHARGING'), async () => {
    const rows = await page.locator('#fleet-table tbody tr[data-id]').count();
    assert.ok(rows <= PAGE_ROWS && (rows > 0 || charging === 0), `${rows} rows, ${charging} charging`);
    assert.equal(await page.locator('#fleet-table tbody tr[data-id]:not(:has(.chip.s-charging))').count(), 0);
  });
  const oneId = page1[42];  // one id of the fleet: its own 5 digits match no other
  await filterMs(() => page.selectOption('#filter-status', ''), async () => {
    assert.equal(await page.locator('#fleet-table tbody tr').count(), PAGE_ROWS);
  });
  const search = await filterMs(() => page.fill('#filter-search', oneId.toLowerCase()), async () => {
    assert.deepEqual(await page.$$eval('#fleet-table tbody tr[data-id]', (trs) => trs.map((tr) => tr.dataset.id)), [oneId]);
  });
  await setup.shot(page, '09-scale-search');

  // The stream over a quiet-ish 20 s window (heartbeats and sessions keep changing things).
  await page.click('#nav a[data-route="pipeline"]');
  await page.waitForSelector('#stream-changes');
  await sleep(2500);
  const first = { changes: await numberIn(page, '#stream-changes'), seq: await numberIn(page, '#stream-seq') };
  const windowS = 20;
  await sleep(windowS * 1000);
  const last = { changes: await numberIn(page, '#stream-changes'), seq: await numberIn(page, '#stream-seq'),
    gaps: await numberIn(page, '#stream-gaps') };
  await setup.shot(page, '09-scale-pipeline');
  const longest = await page.evaluate(() => Math.round(Math.max(0, ...window.__longTasks)));
  const changesPerS = (last.changes - first.changes) / windowS;
  console.log(`browser-scale: overview first page ${marks['fleet-first-page']} ms, counts ${marks['fleet-counts']} ms ` +
    `after load (${FLEET} charge points, ${requests.length} requests: ${[...new Set(requests)].join(' + ')}); ` +
    `status filter ${statusFilter.ms} ms, id search ${search.ms} ms (${search.wall} ms from typing, 300 ms debounce); ` +
    `online count reached ${FLEET} ` +
    `${onlineAfterS.toFixed(1)} s after the first connection; stream ${last.changes - first.changes} changes events ` +
    `in ${windowS} s (${changesPerS.toFixed(2)}/s), seq ${first.seq}..${last.seq}, gaps ${last.gaps}; ` +
    `longest main-thread task ${longest} ms`);
  assert.ok(marks['fleet-first-page'] < 2000, `first page after ${marks['fleet-first-page']} ms`);
  assert.ok(marks['fleet-counts'] < 2000, `counts after ${marks['fleet-counts']} ms`);
  assert.ok(statusFilter.ms < 1000, `status filter after ${statusFilter.ms} ms`);
  assert.ok(search.ms < 1000, `id search after ${search.ms} ms`);
  // The first page and the counts; the stream may add a refetch meanwhile, never a walk of the fleet.
  assert.ok(requests.filter((r) => r === '/api/v1/charge-points').length <= 2, `requests on load: ${requests}`);
  assert.ok(last.changes - first.changes >= windowS / 2, 'changes events keep arriving');
  assert.equal(last.gaps, 0, 'no gap in the changes seq');
  assert.equal(last.seq - first.seq, last.changes - first.changes, 'one seq per event');
  sim.kill('SIGTERM');
});
