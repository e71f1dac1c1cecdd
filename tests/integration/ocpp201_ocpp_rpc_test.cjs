// tests/integration/ocpp201_ocpp_rpc_test.cjs: OCPP 2.0.1 against the real gateway with npm
// `ocpp-rpc` in strict mode. Strict mode makes the client validate every request it sends and
// every response it receives against its own copy of the official 2.0.1 schemas (ajv), so a
// response of ours that breaks a schema fails the call here independently of our validator.
// Covers every charge-point-initiated action (ocpp201_samples.json) and a short transaction.
// Env: OCPPGW_URL (ws://127.0.0.1:<port>/ocpp); OCPP201_NODE_CP (charge point id, default
// node201-1). The event-log side of this client's frames is checked by ocpp201_python_test.py
// (OCPP201_ALSO_CHECK). Prints [PASS]/[FAIL] lines and "N passed, M failed".
'use strict';

const fs = require('fs');
const path = require('path');
const { RPCClient } = require('ocpp-rpc');

const url = (process.env.OCPPGW_URL || '').replace(/\/$/, '');
const identity = process.env.OCPP201_NODE_CP || 'node201-1';
const samples = JSON.parse(fs.readFileSync(path.join(__dirname, 'ocpp201_samples.json'), 'utf8'));

let passed = 0;
let failed = 0;
function check(name, ok, detail) {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? '[PASS]' : '[FAIL]'} ${name}${ok ? '' : `: ${JSON.stringify(detail)}`}`);
}

const expectedStatus = {
  SignCertificate: 'Rejected',
  Get15118EVCertificate: 'Failed',
  GetCertificateStatus: 'Failed',
  DataTransfer: 'UnknownVendorId',
};

async function main() {
  const client = new RPCClient({
    endpoint: url,
    identity,
    protocols: ['ocpp2.0.1'],
    strictMode: true,
    reconnect: false,
    callTimeoutMs: 10000,
  });
  await client.connect();
  check('negotiated ocpp2.0.1', client.protocol === 'ocpp2.0.1', client.protocol);

  for (const { action, request } of samples) {
    // Distinct transaction ids per client: the gateway keeps per-(charge point, tx) state anyway.
    const payload = JSON.parse(JSON.stringify(request));
    if (action === 'TransactionEvent') payload.transactionInfo.transactionId = `${identity}-tx0`;
    try {
      const resp = await client.call(action, payload);
      check(`${action}: strict-mode valid CALLRESULT`, true);
      if (action in expectedStatus)
        check(`${action}: status ${expectedStatus[action]}`, resp.status === expectedStatus[action], resp);
      if (action === 'BootNotification')
        check('BootNotification: interval and time', resp.interval > 0 && !Number.isNaN(Date.parse(resp.currentTime)), resp);
      if (action === 'Authorize')
        check('Authorize: idTokenInfo.status', typeof resp.idTokenInfo.status === 'string', resp);
    } catch (err) {
      check(`${action}: strict-mode valid CALLRESULT`, false, `${err.name} ${err.rpcErrorCode || ''} ${err.message}`);
    }
  }

  // A short session with live timestamps: Started, periodic Updated, Ended.
  const now = Date.now();
  const t = (min) => new Date(now + min * 60000).toISOString();
  const tx = `${identity}-tx1`;
  const ev = (eventType, seqNo, ts, triggerReason, extra) => ({
    eventType, timestamp: ts, triggerReason, seqNo,
    transactionInfo: { transactionId: tx }, evse: { id: 1, connectorId: 1 }, ...extra,
  });
  const mv = (value, ts, context) => ({
    timestamp: ts,
    sampledValue: [{ value, context, measurand: 'Energy.Active.Import.Register', unitOfMeasure: { unit: 'Wh' } }],
  });
  try {
    const started = await client.call('TransactionEvent', ev('Started', 0, t(-5), 'CablePluggedIn',
      { meterValue: [mv(100, t(-5), 'Transaction.Begin')] }));
    check('TransactionEvent Started answered', typeof started === 'object', started);
    await client.call('TransactionEvent', ev('Updated', 1, t(-2), 'MeterValuePeriodic',
      { meterValue: [mv(300, t(-3), 'Sample.Periodic'), mv(400, t(-2), 'Sample.Periodic')] }));
    const ended = await client.call('TransactionEvent', ev('Ended', 2, t(-1), 'EVCommunicationLost',
      { transactionInfo: { transactionId: tx, stoppedReason: 'EVDisconnected' },
        meterValue: [mv(500, t(-1), 'Transaction.End')] }));
    check('TransactionEvent lifecycle answered', typeof ended === 'object', ended);
  } catch (err) {
    check('TransactionEvent lifecycle answered', false, `${err.rpcErrorCode || ''} ${err.message}`);
  }
  await client.close({ code: 1000 });
}

main()
  .catch((err) => check('test run completed', false, String(err && err.stack || err)))
  .finally(() => {
    console.log(`${passed} passed, ${failed} failed`);
    process.exit(failed ? 1 : 0);
  });
