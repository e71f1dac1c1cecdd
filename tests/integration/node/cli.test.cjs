// tests/integration/node/cli.test.cjs: the binary's subcommands fail with their reason on stderr
// and a non-zero exit code, never silently.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const { BIN, tempDataDir } = require('./gateway.cjs');

function run(dataDir, args) {
  return spawnSync(BIN, ['--data-dir', dataDir, ...args], { encoding: 'utf8' });
}

test('a failing subcommand prints why and exits 1', () => {
  const dir = tempDataDir('cli');
  for (const [args, reason] of [
    [['tokens', 'remove', 'NO-SUCH-TAG'], 'ocppgw: tokens remove: no such token'],
    [['tokens', 'add', 'T1', '--status', 'Accepted', '--expiry', 'tomorrow'],
      'ocppgw: tokens add: --expiry is not an RFC 3339 time: tomorrow'],
    [['charge-points', 'delete-password', 'CP-NONE'], 'ocppgw: charge-points delete-password: CP-NONE has no password'],
  ]) {
    const r = run(dir, args);
    assert.equal(r.status, 1, `${args.join(' ')}: exit ${r.status}`);
    assert.equal(r.stderr.trim().split('\n').filter((l) => l.includes(reason)).length, 1,
      `${args.join(' ')}: stderr was ${JSON.stringify(r.stderr)}`);
  }
  // A working one still exits 0 with nothing on stderr.
  const ok = run(dir, ['tokens', 'add', 'T2', '--status', 'Accepted']);
  assert.equal(ok.status, 0, ok.stderr);
  assert.equal(ok.stderr, '');
});
