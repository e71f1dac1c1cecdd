// bench/baselines/ocpp_rpc_csms.js: a minimal OCPP 1.6 central system on npm `ocpp-rpc` (strict
// mode: it validates every CALL and response against the official schemas, as ocppgw does). It
// answers the messages ocppsim sends and persists nothing: the throughput baseline.
// Usage: node ocpp_rpc_csms.js PORT
'use strict';
const { RPCServer } = require('ocpp-rpc');

const port = Number(process.argv[2] || 8181);
const server = new RPCServer({ protocols: ['ocpp1.6', 'ocpp2.0.1'], strictMode: true });
let nextTx = 1;
const now = () => new Date().toISOString();
const accepted = { idTagInfo: { status: 'Accepted' } };

server.on('client', (client) => {
  if (client.protocol === 'ocpp1.6') {
    client.handle('BootNotification', () => ({ status: 'Accepted', interval: 300, currentTime: now() }));
    client.handle('Heartbeat', () => ({ currentTime: now() }));
    client.handle('StatusNotification', () => ({}));
    client.handle('Authorize', () => accepted);
    client.handle('StartTransaction', () => ({ transactionId: nextTx++, ...accepted }));
    client.handle('MeterValues', () => ({}));
    client.handle('StopTransaction', () => accepted);
  } else {
    client.handle('BootNotification', () => ({ status: 'Accepted', interval: 300, currentTime: now() }));
    client.handle('Heartbeat', () => ({ currentTime: now() }));
    client.handle('StatusNotification', () => ({}));
    client.handle('Authorize', () => ({ idTokenInfo: { status: 'Accepted' } }));
    client.handle('TransactionEvent', () => ({}));
    client.handle('MeterValues', () => ({}));
  }
  client.on('error', () => {});
});

server.listen(port, '127.0.0.1').then(() => console.error(`ocpp-rpc CSMS listening on ${port}`));
