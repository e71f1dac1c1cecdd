// tests/integration/node/session.test.cjs: a full 1.6 charging session, an identical
// StartTransaction re-sent after a reconnect, and charge points starting concurrently.
'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { RPCClient } = require('ocpp-rpc');
const { startGateway, tempDataDir, cli } = require('./gateway.cjs');

let gw;

function client(identity) {
  return new RPCClient({
    endpoint: gw.url, identity, protocols: ['ocpp1.6'], strictMode: true, reconnect: false,
  });
}

before(async () => {
  const dir = tempDataDir('session');
  cli(dir, ['tokens', 'add', 'DRIVER-1', '--status', 'Accepted']);
  gw = await startGateway({ dataDir: dir });
});
after(async () => { await gw.stop(); });

test('full session: Boot, Status, Authorize, Start, MeterValues x N, Stop', async () => {
  const cp = client('SESSION-CP');
  await cp.connect();
  await cp.call('BootNotification', { chargePointVendor: 'Acme', chargePointModel: 'AC22' });
  await cp.call('StatusNotification', {
    connectorId: 1, errorCode: 'NoError', status: 'Preparing', timestamp: new Date().toISOString(),
  });
  assert.equal((await cp.call('Authorize', { idTag: 'DRIVER-1' })).idTagInfo.status, 'Accepted');
  const t0 = Date.parse('2026-01-05T08:00:00Z');
  const start = await cp.call('StartTransaction', {
    connectorId: 1, idTag: 'DRIVER-1', meterStart: 10000, timestamp: new Date(t0).toISOString(),
  });
  const tx = start.transactionId;
  const N = 6;
  for (let i = 1; i <= N; i++) {
    await cp.call('MeterValues', {
      connectorId: 1, transactionId: tx,
      meterValue: [{ timestamp: new Date(t0 + i * 60000).toISOString(), sampledValue: [
        { value: String(10 + i), measurand: 'Energy.Active.Import.Register', unit: 'kWh' }] }],
    });
  }
  await cp.call('StopTransaction', {
    transactionId: tx, idTag: 'DRIVER-1', meterStop: 10000 + N * 1000,
    timestamp: new Date(t0 + (N + 1) * 60000).toISOString(), reason: 'EVDisconnected',
  });
  await cp.close();

  const events = gw.events('SESSION-CP').filter((e) => e.event_type !== 'Connection');
  assert.deepEqual(events.map((e) => e.event_type), ['BootNotification', 'StatusNotification',
    'Authorize', 'StartTransaction', ...Array(N).fill('MeterValues'), 'StopTransaction']);
  const txEvents = events.filter((e) => e.transaction_id !== null);
  assert.equal(txEvents.length, N + 2);
  for (const e of txEvents) assert.equal(e.transaction_id, String(tx));
  assert.deepEqual(events.filter((e) => e.event_type === 'MeterValues').map((e) => e.meter_wh),
    Array.from({ length: N }, (_, i) => (11 + i) * 1000));
  const stopEvent = events.at(-1);
  assert.equal(stopEvent.meter_wh, 10000 + N * 1000);
  assert.equal(stopEvent.stop_reason, 'EVDisconnected');
  assert.equal(stopEvent.event_ts, new Date(t0 + (N + 1) * 60000).toISOString());
  assert.equal(events.find((e) => e.event_type === 'StatusNotification').connector_status, 'PREPARING');
});

test('an identical StartTransaction re-sent after a reconnect gets the same id', async () => {
  const req = { connectorId: 2, idTag: 'DRIVER-1', meterStart: 777, timestamp: '2026-01-06T09:30:00.000Z' };
  const first = client('REPLAY-CP');
  await first.connect();
  const a = await first.call('StartTransaction', req);
  await first.close();
  const second = client('REPLAY-CP');
  await second.connect();
  const b = await second.call('StartTransaction', req);
  const c = await second.call('StartTransaction', { ...req, meterStart: 778 });
  await second.close();
  assert.equal(b.transactionId, a.transactionId);
  assert.notEqual(c.transactionId, a.transactionId);
});

test('charge points starting at the same time get different ids', async () => {
  const cps = Array.from({ length: 10 }, (_, i) => client(`CONC-${i}`));
  await Promise.all(cps.map((c) => c.connect()));
  const ts = new Date().toISOString();
  const results = await Promise.all(cps.map((c) => c.call('StartTransaction', {
    connectorId: 1, idTag: 'DRIVER-1', meterStart: 0, timestamp: ts,
  })));
  await Promise.all(cps.map((c) => c.close()));
  const ids = results.map((r) => r.transactionId);
  assert.equal(new Set(ids).size, ids.length, `ids reused: ${ids}`);
  const stored = gw.query('SELECT transaction_id FROM transactions16 WHERE charge_point_id LIKE ?', ['CONC-%'])
    .map((r) => r[0]).sort((x, y) => x - y);
  assert.deepEqual(stored, [...ids].sort((x, y) => x - y));
});

test('a CALLRESULT nobody asked for is logged as Invalid and the link stays usable', async () => {
  // CSMS-initiated calls go out through SessionRegistry::call (unit-tested; the REST API that
  // drives them comes later); a result matching no pending call must not disturb the session.
  const cp = client('STRAY-CP');
  await cp.connect();
  cp.sendRaw(JSON.stringify([3, 'never-sent-by-csms', {}]));
  const hb = await cp.call('Heartbeat', {});
  assert.ok(hb.currentTime);
  await cp.close();
  const invalid = gw.events('STRAY-CP').filter((e) => e.event_type === 'Invalid');
  assert.equal(invalid.length, 1);
  assert.equal(invalid[0].message_id, 'never-sent-by-csms');
});
