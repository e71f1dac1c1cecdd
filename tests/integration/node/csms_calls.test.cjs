// tests/integration/node/csms_calls.test.cjs: the REST API's CSMS calls against the real binary,
// answered by npm `ocpp-rpc` in strict mode for 1.6 and 2.0.1. Strict mode validates every CALL
// the client receives and every answer it sends against ocpp-rpc's own copy of the official
// schemas, independently of the gateway's validator. Every action of csms_call_samples.json
// (shared with the PyPI suite, which also checks the table against the vendored schemas) is
// round-tripped once per version; then the refusals: a payload breaking the schema (400, nothing
// sent), an unknown charge point and one that disconnects before answering (409), one that
// answers too late (504 at csms_call_timeout, and the next call still works).
'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { RPCClient } = require('ocpp-rpc');
const samples = require('../csms_call_samples.json');
const { startGateway, eventually } = require('./gateway.cjs');
const { ADMIN_ENV, operatorToken, csmsCall } = require('./api_client.cjs');

const CALL_TIMEOUT_S = 1; // csms_call_timeout of this gateway: keeps the 504 case short

let gw;
let token;
before(async () => {
  gw = await startGateway({ name: 'csms-calls', args: ['--csms-call-timeout', String(CALL_TIMEOUT_S)], env: ADMIN_ENV });
  token = await operatorToken(gw);
});
after(async () => { assert.equal((await gw.stop()).code, 0); });

// A strict-mode charge point answering each action with `answers[action](params)`; every CALL
// it receives is appended to `received` as [action, params].
async function chargePoint(identity, version, answers) {
  const cp = new RPCClient({ endpoint: gw.url, identity, protocols: [version], strictMode: true, reconnect: false });
  cp.received = [];
  for (const [action, answer] of Object.entries(answers)) {
    cp.handle(action, ({ params }) => {
      cp.received.push([action, params]);
      return answer(params);
    });
  }
  await cp.connect();
  assert.equal(cp.protocol, version);
  // The client has the 101 before the gateway's accept handler has registered the session; a
  // call in between is rightly 409. The Connection event is recorded right after registering.
  assert.ok(await eventually(() => gw.events(identity).some((e) => e.event_type === 'Connection')),
    `${identity}: no Connection event`);
  return cp;
}

// A refusal: its status and error name (the description is for people).
function assertRefused(r, status, error) {
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.equal(r.body.error, error, JSON.stringify(r.body));
}

for (const version of Object.keys(samples)) {
  const table = samples[version];
  const tag = version.replace(/\W/g, '');

  test(`${version}: every CSMS action round-trips to a strict ocpp-rpc charge point`, async () => {
    const id = `NODE-RT-${tag}`;
    const cp = await chargePoint(id, version,
      Object.fromEntries(table.map((s) => [s.action, () => s.response])));
    try {
      for (const s of table) {
        const { status, body } = await csmsCall(gw, token, id, s.action, s.request);
        assert.equal(status, 200, `${s.action}: ${JSON.stringify(body)}`);
        assert.deepEqual(body, { result: 'CallResult', payload: s.response }, s.action);
        assert.deepEqual(cp.received.at(-1), [s.action, s.request], s.action);
      }
      assert.equal(cp.received.length, table.length);
    } finally {
      await cp.close({ force: true });
    }
    const recorded = await eventually(() => {
      const calls = gw.events(id).filter((e) => e.event_type === 'CsmsCall');
      return calls.length === table.length && calls;
    });
    assert.ok(recorded, 'one CsmsCall event per action');
    assert.deepEqual(recorded.map((e) => [e.ocpp_action, e.extra.outcome]), table.map((s) => [s.action, 'result']));
  });

  test(`${version}: 400 without sending, 409 unknown or gone, 504 at the timeout and the next call works`, async () => {
    const id = `NODE-REFUSE-${tag}`;
    let clearCaches = 0;
    const cp = await chargePoint(id, version, {
      Reset: () => ({ status: 'Accepted' }),
      // The first ClearCache is answered well after the gateway gave up; later ones at once.
      ClearCache: async () => {
        if (++clearCaches === 1) await new Promise((r) => setTimeout(r, (CALL_TIMEOUT_S + 1.5) * 1000));
        return { status: 'Accepted' };
      },
      // Drops the connection instead of answering.
      UnlockConnector: () => { cp.close({ force: true }); return new Promise(() => {}); },
    });
    const reset = table.find((s) => s.action === 'Reset').request;

    for (const bad of [{}, { ...reset, type: 'Sometimes' }, { ...reset, unknownField: 1 }]) {
      const { status, body } = await csmsCall(gw, token, id, 'Reset', bad);
      assertRefused({ status, body }, 400, 'InvalidRequest');
      assert.ok(body.violations?.length > 0, JSON.stringify(body));
    }
    assertRefused(await csmsCall(gw, token, id, 'Reset', [reset]), 400, 'InvalidRequest'); // not an object
    assert.equal(cp.received.length, 0, 'nothing reached the charge point');
    assertRefused(await csmsCall(gw, token, 'NODE-NOBODY', 'Reset', reset), 409, 'NotConnected');

    const t0 = Date.now();
    let r = await csmsCall(gw, token, id, 'ClearCache', {});
    const elapsed = Date.now() - t0;
    assertRefused(r, 504, 'Timeout');
    assert.ok(elapsed >= CALL_TIMEOUT_S * 1000 - 50 && elapsed < CALL_TIMEOUT_S * 1000 + 1000, `504 after ${elapsed} ms`);
    r = await csmsCall(gw, token, id, 'Reset', reset); // while the late answer is still due
    assert.deepEqual(r, { status: 200, body: { result: 'CallResult', payload: { status: 'Accepted' } } });
    await new Promise((res) => setTimeout(res, 2000)); // the late answer arrives: not matched to anything
    r = await csmsCall(gw, token, id, 'ClearCache', {});
    assert.deepEqual(r, { status: 200, body: { result: 'CallResult', payload: { status: 'Accepted' } } });

    const unlock = table.find((s) => s.action === 'UnlockConnector').request;
    r = await csmsCall(gw, token, id, 'UnlockConnector', unlock);
    assertRefused(r, 409, 'NotConnected');
    assertRefused(await csmsCall(gw, token, id, 'Reset', reset), 409, 'NotConnected');
    assert.deepEqual(cp.received.map(([a]) => a), ['ClearCache', 'Reset', 'ClearCache', 'UnlockConnector']);

    const outcomes = await eventually(() => {
      const calls = gw.events(id).filter((e) => e.event_type === 'CsmsCall');
      return calls.length >= 4 && calls.map((e) => [e.ocpp_action, e.extra.outcome]);
    });
    assert.deepEqual(outcomes, [['ClearCache', 'timeout'], ['Reset', 'result'], ['ClearCache', 'result'],
      ['UnlockConnector', 'disconnected']]);
  });
}
