// tests/integration/node/bad_input.test.cjs: malformed and hostile input against the real
// binary. Each case gets the right CALLERROR (1.6 spellings) or a clean close, and leaves an
// Invalid event in the SQLite log; nothing crashes and other charge points keep being served.
'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { RPCClient } = require('ocpp-rpc');
const { startGateway, eventually } = require('./gateway.cjs');
const { connectRaw } = require('./raw_client.cjs');

let gw;
before(async () => { gw = await startGateway({ name: 'bad' }); });
after(async () => {
  assert.equal((await gw.health()).status, 200, 'gateway still healthy after the bad input');
  assert.equal((await gw.stop()).code, 0);
});

const invalidEvents = (cp) => gw.events(cp).filter((e) => e.event_type === 'Invalid');

// Sends one frame on a fresh 1.6 connection and returns the reply.
async function exchange(cp, text) {
  const c = await connectRaw(`${gw.url}/${cp}`, ['ocpp1.6']);
  c.send(text);
  const reply = await c.next();
  c.close();
  return reply;
}

const cases = [
  ['malformed JSON', 'BAD-JSON', '[2,"m1","Heartbeat",{', null, 'FormationViolation'],
  ['CALL without payload', 'BAD-SHAPE1', '[2,"m2","Heartbeat"]', 'm2', null],
  ['non-string message id', 'BAD-SHAPE2', '[2,42,"Heartbeat",{}]', null, null],
  ['unknown message type', 'BAD-SHAPE3', '[7,"m3","Heartbeat",{}]', 'm3', null],
  ['frame is an object', 'BAD-SHAPE4', '{"id":"m4"}', null, null],
  ['unknown action', 'BAD-ACTION', '[2,"m5","MakeCoffee",{}]', 'm5', 'NotImplemented'],
  ['missing required field', 'BAD-REQ', '[2,"m6","BootNotification",{"chargePointVendor":"V"}]', 'm6',
    'OccurenceConstraintViolation'],
  ['wrong type', 'BAD-TYPE', '[2,"m7","StatusNotification",{"connectorId":"one","errorCode":"NoError","status":"Available"}]',
    'm7', 'TypeConstraintViolation'],
  ['enum value out of range', 'BAD-ENUM', '[2,"m8","StatusNotification",{"connectorId":1,"errorCode":"NoError","status":"Sleeping"}]',
    'm8', 'PropertyConstraintViolation'],
  ['string too long', 'BAD-LEN', `[2,"m9","BootNotification",{"chargePointVendor":"V","chargePointModel":"${'M'.repeat(21)}"}]`,
    'm9', 'PropertyConstraintViolation'],
  ['unknown property', 'BAD-PROP', '[2,"m10","Heartbeat",{"extra":1}]', 'm10', 'FormationViolation'],
];

for (const [name, cp, text, id, code] of cases) {
  test(`${name} -> CALLERROR${code ? ' ' + code : ''} + Invalid event`, async () => {
    const reply = await exchange(cp, text);
    assert.equal(reply[0], 4, `expected a CALLERROR, got ${JSON.stringify(reply)}`);
    if (id) assert.equal(reply[1], id, 'the message id is echoed');
    if (code) assert.equal(reply[2], code);
    assert.ok(typeof reply[3] === 'string' && reply[3].length > 0, 'error description');
    const invalid = invalidEvents(cp);
    assert.equal(invalid.length, 1);
    assert.equal(invalid[0].extra.raw, text);
  });
}

test('1 MB+ frame closes with 1009 while another charge point keeps working', async () => {
  const other = new RPCClient({ endpoint: gw.url, identity: 'BIG-NEIGHBOUR', protocols: ['ocpp1.6'],
    strictMode: true, reconnect: false });
  await other.connect();
  const c = await connectRaw(`${gw.url}/BIG-CP`, ['ocpp1.6']);
  const big = `[2,"b1","DataTransfer",{"vendorId":"x","data":"${'A'.repeat(1100 * 1024)}"}]`;
  c.send(big);
  const [closed, hb] = await Promise.all([c.closed, other.call('Heartbeat', {})]);
  assert.equal(closed.code, 1009);
  assert.ok(hb.currentTime);
  assert.ok((await other.call('Heartbeat', {})).currentTime);
  await other.close();
  const invalid = invalidEvents('BIG-CP');
  assert.equal(invalid.length, 1);
  assert.ok(invalid[0].extra.raw.startsWith('[2,"b1","DataTransfer"'), 'keeps the start of the frame');
  assert.ok(invalid[0].extra.raw.length < big.length);
});

test('binary frame closes with 1003 and is recorded', async () => {
  const c = await connectRaw(`${gw.url}/BIN-CP`, ['ocpp1.6']);
  c.ws.send(Buffer.from([0x93, 0x02, 0xa1, 0x31]), { binary: true });
  const closed = await c.closed;
  assert.equal(closed.code, 1003);
  const invalid = invalidEvents('BIN-CP');
  assert.equal(invalid.length, 1);
  assert.equal(invalid[0].extra.raw, 'hex:9302a131');
});

test('invalid charge point ids are refused with HTTP 400 before the upgrade', async () => {
  const before = gw.query("SELECT count(*) FROM events WHERE event_type = 'Invalid' AND charge_point_id = ''")[0][0];
  for (const id of ['a%2Fb', 'x'.repeat(49), 'bad%20id', '%zz']) {
    const r = await connectRaw(`${gw.url}/${id}`, ['ocpp1.6']);
    assert.equal(r.status, 400, `id ${id}`);
    assert.match(r.body, /charge point id|percent/);
  }
  const afterCount = await eventually(() => {
    const n = gw.query("SELECT count(*) FROM events WHERE event_type = 'Invalid' AND charge_point_id = ''")[0][0];
    return n >= before + 4 ? n : 0;
  });
  assert.equal(afterCount, before + 4);
});

test('CALLRESULT and CALLERROR for unknown message ids are logged, not answered', async () => {
  const c = await connectRaw(`${gw.url}/STRAY-RESULTS`, ['ocpp1.6']);
  c.send('[3,"nope-1",{"status":"Accepted"}]');
  c.send('[4,"nope-2","GenericError","",{}]');
  c.send('[2,"hb","Heartbeat",{}]');
  const reply = await c.next();
  assert.equal(reply[1], 'hb', 'the first reply is the heartbeat: stray results get none');
  c.close();
  assert.deepEqual(invalidEvents('STRAY-RESULTS').map((e) => e.message_id), ['nope-1', 'nope-2']);
});
