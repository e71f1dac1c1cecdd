// tests/integration/node/subprotocol.test.cjs: Sec-WebSocket-Protocol negotiation of the real
// binary: the server's preference order decides among what the charge point offers, a pinned
// charge point gets only its version, and a handshake with nothing supported is refused with
// HTTP 400 (never a silent downgrade).
'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { RPCClient } = require('ocpp-rpc');
const { startGateway } = require('./gateway.cjs');
const { connectRaw } = require('./raw_client.cjs');

let gw;
before(async () => {
  gw = await startGateway({ name: 'subprotocol', args: ['--subprotocol-pins', 'PINNED-16=ocpp1.6'] });
});
after(async () => { await gw.stop(); });

async function negotiated(identity, protocols) {
  const cp = new RPCClient({ endpoint: gw.url, identity, protocols, strictMode: true, reconnect: false });
  await cp.connect();
  const protocol = cp.protocol;
  // The chosen version drives the session: a Heartbeat valid in both passes strict mode.
  assert.ok((await cp.call('Heartbeat', {})).currentTime);
  await cp.close();
  return protocol;
}

test('only ocpp1.6 offered -> ocpp1.6', async () => {
  assert.equal(await negotiated('SP-16', ['ocpp1.6']), 'ocpp1.6');
});

test('only ocpp2.0.1 offered -> ocpp2.0.1', async () => {
  assert.equal(await negotiated('SP-201', ['ocpp2.0.1']), 'ocpp2.0.1');
});

test('both offered -> the server preference (ocpp2.0.1), whatever the client order', async () => {
  assert.equal(await negotiated('SP-BOTH-A', ['ocpp1.6', 'ocpp2.0.1']), 'ocpp2.0.1');
  assert.equal(await negotiated('SP-BOTH-B', ['ocpp2.0.1', 'ocpp1.6']), 'ocpp2.0.1');
});

test('a pinned charge point gets its version even when offering both', async () => {
  assert.equal(await negotiated('PINNED-16', ['ocpp2.0.1', 'ocpp1.6']), 'ocpp1.6');
  const refused = await connectRaw(`${gw.url}/PINNED-16`, ['ocpp2.0.1']);
  assert.equal(refused.status, 400);
});

test('neither offered -> HTTP 400 with a clear reason', async () => {
  const none = await connectRaw(`${gw.url}/SP-NONE`, []);
  assert.equal(none.status, 400);
  assert.match(none.body, /no Sec-WebSocket-Protocol offered/);
  const unknown = await connectRaw(`${gw.url}/SP-UNKNOWN`, ['ocpp1.5', 'ocpp2.1']);
  assert.equal(unknown.status, 400);
  assert.match(unknown.body, /none of the offered subprotocols \(ocpp1\.5, ocpp2\.1\)/);
  const events = gw.events('SP-UNKNOWN');
  assert.equal(events.length, 1);
  assert.equal(events[0].event_type, 'Invalid');
});

test('the negotiated version is on every event', async () => {
  for (const [cp, v] of [['SP-16', '1.6'], ['SP-201', '2.0.1']])
    for (const e of gw.events(cp)) assert.equal(e.ocpp_version, v, `${cp} ${e.event_type}`);
});
