// tests/integration/node/ocpp16_messages.test.cjs: every charge-point-initiated OCPP 1.6
// message, sent by npm ocpp-rpc in strict mode (it validates our responses against the official
// schemas itself), then checked in the SQLite event log of the real binary.
'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { RPCClient } = require('ocpp-rpc');
const { startGateway, tempDataDir, cli } = require('./gateway.cjs');

let gw;
const now = () => new Date().toISOString();

function client(identity) {
  return new RPCClient({
    endpoint: gw.url, identity, protocols: ['ocpp1.6'], strictMode: true, reconnect: false,
  });
}

before(async () => {
  const dir = tempDataDir('messages');
  cli(dir, ['tokens', 'add', 'TAG-OK', '--status', 'Accepted']);
  cli(dir, ['tokens', 'add', 'TAG-BLOCKED', '--status', 'Blocked']);
  gw = await startGateway({ dataDir: dir });
});
after(async () => {
  assert.equal((await gw.stop()).code, 0, 'graceful shutdown exits 0');
});

test('every CP-initiated 1.6 message is answered schema-valid and logged', async () => {
  const cp = client('MSG-CP1');
  await cp.connect();
  assert.equal(cp.protocol, 'ocpp1.6');

  const boot = await cp.call('BootNotification', {
    chargePointVendor: 'Acme', chargePointModel: 'FastCharger 50', chargePointSerialNumber: 'SN-1',
    firmwareVersion: '1.2.3', meterType: 'AC',
  });
  assert.equal(boot.status, 'Accepted');
  assert.equal(boot.interval, 300);
  assert.ok(!Number.isNaN(Date.parse(boot.currentTime)));

  const hb = await cp.call('Heartbeat', {});
  assert.ok(!Number.isNaN(Date.parse(hb.currentTime)));

  assert.deepEqual(await cp.call('StatusNotification', {
    connectorId: 1, errorCode: 'NoError', status: 'Available', timestamp: now(),
  }), {});

  assert.equal((await cp.call('Authorize', { idTag: 'TAG-OK' })).idTagInfo.status, 'Accepted');
  assert.equal((await cp.call('Authorize', { idTag: 'TAG-BLOCKED' })).idTagInfo.status, 'Blocked');
  assert.equal((await cp.call('Authorize', { idTag: 'NOBODY' })).idTagInfo.status, 'Invalid');

  const start = await cp.call('StartTransaction', {
    connectorId: 1, idTag: 'TAG-OK', meterStart: 1000, timestamp: now(),
  });
  assert.equal(start.idTagInfo.status, 'Accepted');
  assert.ok(Number.isInteger(start.transactionId) && start.transactionId > 0);

  assert.deepEqual(await cp.call('MeterValues', {
    connectorId: 1, transactionId: start.transactionId,
    meterValue: [{ timestamp: now(), sampledValue: [
      { value: '1500', measurand: 'Energy.Active.Import.Register', unit: 'Wh' },
      { value: '7.2', measurand: 'Power.Active.Import', unit: 'kW' }] }],
  }), {});

  const stop = await cp.call('StopTransaction', {
    transactionId: start.transactionId, idTag: 'TAG-OK', meterStop: 2500, timestamp: now(),
    reason: 'Local',
  });
  assert.equal(stop.idTagInfo.status, 'Accepted');

  const dt = await cp.call('DataTransfer', { vendorId: 'com.acme', messageId: 'Ping', data: 'hi' });
  assert.ok(['Accepted', 'Rejected', 'UnknownMessageId', 'UnknownVendorId'].includes(dt.status));

  assert.deepEqual(await cp.call('DiagnosticsStatusNotification', { status: 'Uploaded' }), {});
  assert.deepEqual(await cp.call('FirmwareStatusNotification', { status: 'Installed' }), {});
  await cp.close();

  const events = gw.events('MSG-CP1');
  const types = new Set(events.map((e) => e.event_type));
  for (const t of ['Connection', 'BootNotification', 'Heartbeat', 'StatusNotification', 'Authorize',
    'StartTransaction', 'MeterValues', 'StopTransaction', 'DataTransfer', 'DiagnosticsStatus',
    'FirmwareStatus']) assert.ok(types.has(t), `missing ${t} event`);
  for (const e of events) {
    assert.equal(e.ocpp_version, '1.6');
    assert.equal(e.charge_point_id, 'MSG-CP1');
  }
  const meter = events.find((e) => e.event_type === 'MeterValues');
  assert.equal(meter.meter_wh, 1500);
  assert.equal(meter.power_w, 7200);
  assert.equal(meter.transaction_id, String(start.transactionId));
  // Raw id tags never reach the log, only their HMAC.
  const raw = JSON.stringify(events);
  assert.ok(!raw.includes('TAG-OK') && !raw.includes('TAG-BLOCKED'), 'raw id tag in the event log');
  assert.ok(events.find((e) => e.event_type === 'Authorize').id_token_hash.length >= 32);
});
