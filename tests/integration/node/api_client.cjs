// tests/integration/node/api_client.cjs: the REST API (docs/api.md) as the node suites use it:
// JSON requests with a bearer token, logging in, creating an operator, the CSMS call route.
'use strict';
const http = require('node:http');

const ADMIN_PASSWORD = 'integration admin password';
// Give a gateway this environment to start with admin `admin` / ADMIN_PASSWORD.
const ADMIN_ENV = { OCPPGW_ADMIN_PASSWORD: ADMIN_PASSWORD };

// { status, body (parsed JSON or null) } of one request to the gateway `gw`.
function request(gw, method, pathname, body, token, timeoutMs = 20000) {
  const data = body === undefined ? null : Buffer.from(JSON.stringify(body));
  const headers = {};
  if (data) Object.assign(headers, { 'Content-Type': 'application/json', 'Content-Length': data.length });
  if (token) headers.Authorization = `Bearer ${token}`;
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: gw.port, method, path: pathname, headers,
      timeout: timeoutMs }, (res) => {
      let raw = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (raw += d));
      res.on('end', () => resolve({ status: res.statusCode, body: raw ? JSON.parse(raw) : null }));
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${pathname}: no answer in ${timeoutMs} ms`)));
    req.on('error', reject);
    if (data) req.write(data);
    req.end();
  });
}

async function login(gw, name, password) {
  const { status, body } = await request(gw, 'POST', '/api/v1/session', { name, password });
  if (status !== 200) throw new Error(`login ${name}: ${status} ${JSON.stringify(body)}`);
  return body.token;
}

// A bearer token of a fresh operator `op`, on a gateway started with ADMIN_ENV.
async function operatorToken(gw) {
  const admin = await login(gw, 'admin', ADMIN_PASSWORD);
  const password = 'op password 123';
  const { status, body } = await request(gw, 'POST', '/api/v1/operators',
    { name: 'op', role: 'operator', password }, admin);
  if (status !== 201) throw new Error(`add operator: ${status} ${JSON.stringify(body)}`);
  return login(gw, 'op', password);
}

// { status, body } of POST /api/v1/charge-points/{id}/calls/{action}.
function csmsCall(gw, token, chargePointId, action, payload) {
  return request(gw, 'POST',
    `/api/v1/charge-points/${encodeURIComponent(chargePointId)}/calls/${action}`, payload, token);
}

module.exports = { ADMIN_ENV, request, login, operatorToken, csmsCall };
