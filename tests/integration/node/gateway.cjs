// tests/integration/node/gateway.cjs: starts the real `ocppgw` binary (env OCPPGW_BIN) on a
// free loopback port with a temp data dir, waits until GET /health answers 200, and queries its
// SQLite file (through python3's sqlite3: node 20 has no SQLite module).
'use strict';
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const http = require('node:http');

const BIN = process.env.OCPPGW_BIN || path.resolve(__dirname, '../../../build/gateway/ocppgw');

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

function httpGet(port, pathname) {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: pathname, timeout: 1000 }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    req.on('error', () => resolve({ status: 0, body: '' }));
    req.on('timeout', () => req.destroy());
  });
}

function tempDataDir(name) {
  return fs.mkdtempSync(path.join(os.tmpdir(), `ocppgw-it-${name}-`));
}

// Runs a CLI subcommand of the binary (e.g. tokens add) against a data dir.
function cli(dataDir, args) {
  return execFileSync(BIN, ['--data-dir', dataDir, ...args], { encoding: 'utf8' });
}

class Gateway {
  constructor(dataDir, port, args, env = {}) {
    this.dataDir = dataDir;
    this.port = port;
    this.args = args;
    this.env = env; // on top of the test's own environment (e.g. OCPPGW_ADMIN_PASSWORD)
    this.url = `ws://127.0.0.1:${port}/ocpp`;
    this.dbPath = path.join(dataDir, 'ocppgw.db');
    this.logText = '';
  }

  async start() {
    this.proc = spawn(BIN, ['--listen', `127.0.0.1:${this.port}`, '--data-dir', this.dataDir,
      '--threads', '2', ...this.args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...this.env } });
    this.proc.stderr.on('data', (d) => (this.logText += d));
    this.exited = new Promise((resolve) => this.proc.on('exit', (code, signal) => resolve({ code, signal })));
    const deadline = Date.now() + 15000;
    while (Date.now() < deadline) {
      if (this.proc.exitCode !== null) throw new Error(`ocppgw exited early:\n${this.logText}`);
      if ((await httpGet(this.port, '/health')).status === 200) return this;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`ocppgw not ready in time:\n${this.logText}`);
  }

  health() { return httpGet(this.port, '/health'); }

  // Graceful stop (SIGTERM); resolves with the exit code.
  async stop() {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return this.exited;
    this.proc.kill('SIGTERM');
    return this.exited;
  }

  async kill9() {
    this.proc.kill('SIGKILL');
    return this.exited;
  }

  // Rows of a SELECT as arrays (JSON-decoded by python3's sqlite3; json_extract available).
  query(sql, params = [], dbPath = this.dbPath) {
    const script = 'import json,sqlite3,sys\n' +
      'db=sqlite3.connect(sys.argv[1])\n' +
      'sql,params=json.loads(sys.stdin.read())\n' +
      'print(json.dumps([list(r) for r in db.execute(sql,params)]))\n';
    const out = execFileSync('python3', ['-c', script, dbPath],
      { input: JSON.stringify([sql, params]), encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    return JSON.parse(out);
  }

  // The same against the analytics store (data/analytics.db).
  analyticsQuery(sql, params = []) {
    return this.query(sql, params, path.join(this.dataDir, 'analytics.db'));
  }

  // Canonical events of one charge point, in commit order.
  events(chargePointId) {
    return this.query('SELECT json FROM events WHERE charge_point_id = ? ORDER BY seq',
      [chargePointId]).map((r) => JSON.parse(r[0]));
  }
}

async function startGateway({ name = 'gw', dataDir, args = [], port, env } = {}) {
  const dir = dataDir || tempDataDir(name);
  return new Gateway(dir, port || (await freePort()), args, env).start();
}

// Polls `fn` until it returns a truthy value (events are committed before replies, but
// Connection events of a closing socket may land just after).
async function eventually(fn, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

module.exports = { BIN, startGateway, tempDataDir, cli, freePort, eventually, Gateway };
