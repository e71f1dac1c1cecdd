// bench/commands_driver.cjs: a small concurrent HTTP driver for bench/commands.sh. It issues
// POST /api/v1/charge-points/{id}/calls/{action} (docs/api.md) with a bearer token from
// CONCURRENCY workers over keep-alive connections, for DURATION seconds, spreading the calls
// round robin over COUNT charge points named like ocppsim's (--id-pattern, e.g. SIM-{05d}), and
// prints one JSON line: calls by HTTP status and result, calls per second, and the p50/p99/p999
// of the API round trip (request written to answer read) of the successful calls.
// Node's standard library only. Usage:
//   node commands_driver.cjs --port P --token T --count N [--first-index 1] [--pattern SIM-{05d}]
//        [--concurrency 64] [--duration 20] [--action ChangeConfiguration]
//        [--payload '{"key":"HeartbeatInterval","value":"300"}']
'use strict';
const http = require('node:http');

function args() {
  const a = { port: 18180, token: '', count: 1000, firstIndex: 1, pattern: 'SIM-{05d}', concurrency: 64,
    duration: 20, action: 'ChangeConfiguration', payload: '{"key":"HeartbeatInterval","value":"300"}' };
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '').replace(/-(\w)/g, (_, c) => c.toUpperCase());
    if (!(key in a)) throw new Error(`unknown option ${argv[i]}`);
    a[key] = typeof a[key] === 'number' ? Number(argv[i + 1]) : argv[i + 1];
  }
  return a;
}

// ocppsim's id pattern: "{05d}" is the zero-padded index ("{d}" unpadded).
function chargePointId(pattern, index) {
  return pattern.replace(/\{0?(\d*)d\}/, (_, width) => String(index).padStart(Number(width || 0), '0'));
}

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function main() {
  const o = args();
  const body = Buffer.from(o.payload);
  const agent = new http.Agent({ keepAlive: true, maxSockets: o.concurrency });
  const latenciesUs = [];
  const byOutcome = {};
  let next = 0;
  const deadline = Date.now() + o.duration * 1000;

  const call = (id) => new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    const req = http.request({ agent, host: '127.0.0.1', port: o.port, method: 'POST',
      path: `/api/v1/charge-points/${encodeURIComponent(id)}/calls/${o.action}`,
      headers: { Authorization: `Bearer ${o.token}`, 'Content-Type': 'application/json',
        'Content-Length': body.length } }, (res) => {
      let raw = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (raw += d));
      res.on('end', () => {
        const us = Number((process.hrtime.bigint() - t0) / 1000n);
        let result = '';
        try { result = JSON.parse(raw).result || JSON.parse(raw).error || ''; } catch { result = 'unparsable'; }
        resolve({ status: res.statusCode, result, us });
      });
    });
    req.on('error', (e) => resolve({ status: 0, result: e.code || e.message, us: 0 }));
    req.end(body);
  });

  const worker = async () => {
    while (Date.now() < deadline) {
      const id = chargePointId(o.pattern, o.firstIndex + (next++ % o.count));
      const r = await call(id);
      const key = `${r.status} ${r.result}`;
      byOutcome[key] = (byOutcome[key] || 0) + 1;
      if (r.status === 200 && r.result === 'CallResult') latenciesUs.push(r.us);
    }
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: o.concurrency }, worker));
  const seconds = (Date.now() - started) / 1000;
  agent.destroy();
  latenciesUs.sort((x, y) => x - y);
  const calls = Object.values(byOutcome).reduce((s, n) => s + n, 0);
  console.log(JSON.stringify({
    action: o.action, charge_points: o.count, concurrency: o.concurrency, seconds,
    calls, ok: latenciesUs.length, by_outcome: byOutcome,
    calls_per_s: calls / seconds, ok_per_s: latenciesUs.length / seconds,
    p50_us: percentile(latenciesUs, 50), p99_us: percentile(latenciesUs, 99), p999_us: percentile(latenciesUs, 99.9),
  }));
}

main().catch((e) => { console.error(e); process.exit(1); });
