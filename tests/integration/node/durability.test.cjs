// tests/integration/node/durability.test.cjs: kill -9 the real gateway while ocpp-rpc charge
// points keep it busy, restart it on the same data dir, and prove the ack-after-durable promise:
// every frame a client got a CALLRESULT for is in the events table exactly once, and 1.6
// transaction ids keep increasing without reuse (an identical StartTransaction re-sent after
// the restart still gets its original id). Analytics, which trails the log, catches up from its
// watermark after each restart: every logged event is analysed exactly once.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { RPCClient } = require('ocpp-rpc');
const { startGateway, tempDataDir } = require('./gateway.cjs');

const CHARGE_POINTS = 12;
const LOAD_MS = 1500;
const ROUNDS = 2;

// One charge point hammering the gateway: StartTransaction (unique each time), StatusNotification
// and Heartbeat, several calls in flight. Records the ids of every CALLRESULT it receives.
function loadClient(url, identity, acked, starts) {
  const cp = new RPCClient({ endpoint: url, identity, protocols: ['ocpp1.6'], strictMode: true,
    reconnect: false, callConcurrency: 4, callTimeoutMs: 10000 });
  cp.on('message', ({ message, outbound }) => {
    if (outbound) return;
    const frame = JSON.parse(message.toString());
    if (frame[0] === 3) acked.push([identity, frame[1]]);
  });
  cp.on('error', () => {});
  let running = true;
  let n = 0;
  const loop = async () => {
    await cp.connect();
    while (running) {
      n += 1;
      const startReq = { connectorId: 1 + (n % 2), idTag: 'LOAD', meterStart: n,
        timestamp: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString() };
      await Promise.all([
        cp.call('StartTransaction', startReq).then((r) => starts.push({ identity, req: startReq, id: r.transactionId })),
        cp.call('StatusNotification', { connectorId: 1, errorCode: 'NoError', status: 'Charging',
          timestamp: new Date().toISOString() }),
        cp.call('Heartbeat', {}),
      ]);
    }
  };
  const done = loop().catch(() => {});
  return { stop: () => { running = false; return done; }, client: cp };
}

test('kill -9 under load loses no acknowledged frame and reuses no transaction id', async () => {
  const dataDir = tempDataDir('durability');
  let gw = await startGateway({ dataDir });
  const port = gw.port;
  const allAcked = [];
  const allStarts = [];

  for (let round = 0; round < ROUNDS; round++) {
    const acked = [];
    const starts = [];
    const clients = Array.from({ length: CHARGE_POINTS },
      (_, i) => loadClient(gw.url, `DUR-${round}-${i}`, acked, starts));
    await new Promise((r) => setTimeout(r, LOAD_MS));
    const killed = await gw.kill9();
    assert.equal(killed.signal, 'SIGKILL');
    await Promise.all(clients.map((c) => c.stop()));
    assert.ok(acked.length > 100, `only ${acked.length} frames acknowledged before the kill`);
    allAcked.push(...acked);
    allStarts.push(...starts);

    gw = await startGateway({ dataDir, port });

    // Every acknowledged frame is in the log exactly once.
    const counts = new Map(gw.query(
      "SELECT charge_point_id || ' ' || json_extract(json, '$.message_id'), count(*) FROM events " +
      "WHERE charge_point_id LIKE ? AND event_type != 'Connection' GROUP BY 1", [`DUR-${round}-%`]));
    const missing = acked.filter(([cp, id]) => counts.get(`${cp} ${id}`) !== 1);
    assert.deepEqual(missing, [], `${missing.length} of ${acked.length} acknowledged frames not logged exactly once`);
    console.log(`round ${round}: ${acked.length} acknowledged frames, ${starts.length} transactions; ` +
      `${counts.size} frames in the log (the rest were in flight at the kill)`);
  }

  // Every id handed out is stored, and none was handed out twice.
  const ids = allStarts.map((s) => s.id);
  assert.equal(new Set(ids).size, ids.length, 'a transaction id was reused');
  const stored = new Set(gw.query('SELECT transaction_id FROM transactions16').map((r) => r[0]));
  for (const id of ids) assert.ok(stored.has(id), `acknowledged transaction ${id} not stored`);

  // After the restarts: new ids are above every id acknowledged before, and an identical
  // re-sent StartTransaction gets its original id back.
  const cp = new RPCClient({ endpoint: gw.url, identity: allStarts[0].identity, protocols: ['ocpp1.6'],
    strictMode: true, reconnect: false });
  await cp.connect();
  const replay = await cp.call('StartTransaction', allStarts[0].req);
  assert.equal(replay.transactionId, allStarts[0].id);
  const fresh = await cp.call('StartTransaction', { connectorId: 1, idTag: 'LOAD', meterStart: 1,
    timestamp: new Date().toISOString() });
  await cp.close();
  assert.ok(fresh.transactionId > Math.max(...ids), `${fresh.transactionId} <= ${Math.max(...ids)}`);

  // /health shows analytics caught up: its watermark reaches the log's end, no lag.
  let health;
  const deadline = Date.now() + 10000;
  do {
    health = await (await fetch(`http://127.0.0.1:${gw.port}/health`)).json();
    if (health.analytics.lag_events === 0 && health.analytics.event_log_seq > 0) break;
    await new Promise((r) => setTimeout(r, 100));
  } while (Date.now() < deadline);
  const [[maxSeq]] = gw.query('SELECT max(seq) FROM events');
  assert.equal(health.analytics.lag_events, 0, JSON.stringify(health.analytics));
  assert.equal(health.analytics.event_log_seq, maxSeq, JSON.stringify(health.analytics));
  assert.ok(health.analytics.log_events > 0, 'the restart read nothing from the event log');
  assert.equal((await gw.stop()).code, 0);

  // Analytics after two kills: the watermark is the log's end and the raw count is the log's
  // size (nothing lost between commit and analysis, nothing analysed twice).
  const [[logged, lastSeq]] = gw.query('SELECT count(*), max(seq) FROM events');
  const state = Object.fromEntries(gw.analyticsQuery(
    "SELECT key, value FROM pipeline_state WHERE key IN ('raw_total', 'event_log_seq')"));
  assert.equal(state.event_log_seq, lastSeq, 'analytics watermark is not the end of the log');
  assert.equal(state.raw_total, logged, 'analytics did not see every logged event exactly once');
});
