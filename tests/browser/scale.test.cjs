// tests/browser/scale.test.cjs: the overview with 5,000 connected simulated charge points
// (build/sim/ocppsim, env OCPPSIM_BIN). Measures with the Performance API how long after a
// fresh load the overview shows its first page and its counts (target < 2 s), checks that the
// online count reaches the whole fleet without a reload, and that the live stream keeps up
// (changes events arrive, their seq has no gaps). Bounded: about a minute and a half.
'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { Setup, ACCOUNTS, sleep, ROOT } = require('./lib/harness.cjs');

const SIM = process.env.OCPPSIM_BIN || path.join(ROOT, 'build/sim/ocppsim');
const FLEET = Number(process.env.BROWSER_SCALE_FLEET || 5000);
const CONNECT_RATE = 250;  // connections per second: the fleet is up in about 20 s
const NO_STREAM = process.env.BROWSER_NO_STREAM === '1';
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
  await page.reload();
  await page.waitForFunction(() => performance.getEntriesByName('fleet-counts').length > 0, null, { timeout: 30000 });
  const marks = await page.evaluate(() => Object.fromEntries(['fleet-mount', 'fleet-first-page', 'fleet-counts']
    .map((n) => [n, Math.round(performance.getEntriesByName(n)[0].startTime)])));
  assert.equal(await page.locator('#fleet-table tbody tr').count(), 50);
  assert.equal(await numberIn(page, '#count-online strong'), FLEET);
  await setup.shot(page, '09-scale-reloaded');
  await setup.docShot(page, 'fleet');

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
    `after load (${FLEET} charge points, ${Math.ceil(FLEET / 500)} list requests); online count reached ${FLEET} ` +
    `${onlineAfterS.toFixed(1)} s after the first connection; stream ${last.changes - first.changes} changes events ` +
    `in ${windowS} s (${changesPerS.toFixed(2)}/s), seq ${first.seq}..${last.seq}, gaps ${last.gaps}; ` +
    `longest main-thread task ${longest} ms`);
  assert.ok(marks['fleet-first-page'] < 2000, `first page after ${marks['fleet-first-page']} ms`);
  assert.ok(marks['fleet-counts'] < 2000, `counts after ${marks['fleet-counts']} ms`);
  if (!NO_STREAM) {
    assert.ok(last.changes - first.changes >= windowS / 2, 'changes events keep arriving');
    assert.equal(last.gaps, 0, 'no gap in the changes seq');
    assert.equal(last.seq - first.seq, last.changes - first.changes, 'one seq per event');
  }
  sim.kill('SIGTERM');
});
