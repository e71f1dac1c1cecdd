// tests/integration/node/raw_client.cjs: a bare WebSocket peer (npm ws) for what a conforming
// OCPP library refuses to send: malformed frames, binary frames, oversize frames, odd handshakes.
'use strict';
const WebSocket = require('ws');

// Resolves with {ws, next, closed} once open, or with {status} when the upgrade is refused.
function connectRaw(url, protocols) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocols, { maxPayload: 64 * 1024 * 1024 });
    const queue = [];
    const waiters = [];
    const closed = new Promise((r) => ws.on('close', (code, reason) => r({ code, reason: reason.toString() })));
    ws.on('message', (data) => {
      const text = data.toString();
      if (waiters.length) waiters.shift()(text); else queue.push(text);
    });
    ws.on('unexpected-response', (req, res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    ws.on('error', (e) => { if (ws.readyState === WebSocket.CONNECTING) reject(e); });
    ws.on('open', () => resolve({
      ws,
      protocol: ws.protocol,
      closed,
      send: (text) => ws.send(text),
      // Next text frame as parsed JSON (5 s timeout).
      next: () => new Promise((res, rej) => {
        if (queue.length) return res(JSON.parse(queue.shift()));
        const t = setTimeout(() => rej(new Error('no frame within 5 s')), 5000);
        waiters.push((text) => { clearTimeout(t); res(JSON.parse(text)); });
      }),
      close: () => ws.close(1000),
    }));
  });
}

module.exports = { connectRaw };
