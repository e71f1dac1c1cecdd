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
      'ocppgw: tokens add: expiry is not an RFC 3339 time (e.g. 2030-01-01T00:00:00Z): tomorrow'],
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

test('global options work after the subcommand too, for every subcommand', () => {
  const dir = tempDataDir('cli-after');
  const add = spawnSync(BIN, ['tokens', 'add', 'T-AFTER', '--status', 'Accepted', '--data-dir', dir],
    { encoding: 'utf8' });
  assert.equal(add.status, 0, add.stderr);
  // The token went into the data folder named after the subcommand, not into ./data.
  const before = run(dir, ['tokens', 'list']);
  assert.equal(before.status, 0, before.stderr);
  assert.match(before.stdout, / Accepted/);
  for (const args of [['tokens', 'list'], ['charge-points', 'list'], ['rebuild'], ['reconcile'],
    ['quarantine', 'list']]) {
    const r = spawnSync(BIN, [...args, '--data-dir', dir], { encoding: 'utf8' });
    assert.doesNotMatch(r.stderr, /not expected/, `${args.join(' ')} --data-dir: ${r.stderr}`);
    assert.equal(r.status, 0, `${args.join(' ')} --data-dir: exit ${r.status}, ${r.stderr}`);
  }
  // An option nobody knows is still refused.
  const bad = spawnSync(BIN, ['tokens', 'list', '--no-such-option'], { encoding: 'utf8' });
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr, /--no-such-option/);
});
