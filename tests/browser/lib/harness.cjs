// tests/browser/lib/harness.cjs: what the browser tests share: the real gateway (env
// OCPPGW_BIN) on a free loopback port with a temp data folder and three accounts (admin,
// operator, viewer), the page's address, real Chromium (Debian's /usr/bin/chromium through
// npm playwright-core), screenshots under tests/browser/artifacts/, and ocpp-rpc charge points.
//
// The page is served by the gateway itself at /ui/ (web/static embedded at build time), with
// the API and the live stream on the same origin.
'use strict';
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { chromium } = require('playwright-core');
const { RPCClient } = require('ocpp-rpc');
const { Gateway, tempDataDir, freePort, BIN } = require('../../integration/node/gateway.cjs');

const ROOT = path.resolve(__dirname, '../../..');
const ARTIFACTS = path.join(ROOT, 'tests/browser/artifacts');
const CHROMIUM = process.env.CHROMIUM_BIN || '/usr/bin/chromium';

const ACCOUNTS = {
  admin: { name: 'admin', password: 'browser admin password', role: 'admin' },
  operator: { name: 'olga', password: 'olga operator password', role: 'operator' },
  viewer: { name: 'victor', password: 'victor viewer password', role: 'viewer' },
};

function addOperator(dataDir, account) {
  execFileSync(BIN, ['--data-dir', dataDir, 'operators', 'add', account.name, '--role', account.role,
    '--password-env', 'BROWSER_TEST_PASSWORD'], { env: { ...process.env, BROWSER_TEST_PASSWORD: account.password }, stdio: 'pipe' });
}

function get(port, pathname) {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: pathname, timeout: 2000 }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body }));
    });
    req.on('error', () => resolve({ status: 0, headers: {}, body: '' }));
    req.on('timeout', () => req.destroy());
  });
}

class Setup {
  // Starts the gateway (extra args) with the three accounts and checks that it serves the page.
  async start({ name = 'browser', args = [] } = {}) {
    this.dataDir = tempDataDir(name);
    this.args = args;
    this.gw = await new Gateway(this.dataDir, await freePort(), this.args,
      { OCPPGW_ADMIN_PASSWORD: ACCOUNTS.admin.password }).start();
    addOperator(this.dataDir, ACCOUNTS.operator);
    addOperator(this.dataDir, ACCOUNTS.viewer);
    const ui = await get(this.gw.port, '/ui/');
    if (ui.status !== 200 || !/<html/i.test(ui.body)) {
      throw new Error(`${BIN} serves no page at /ui/ (HTTP ${ui.status}): rebuild it`);
    }
    this.base = `http://127.0.0.1:${this.gw.port}`;
    this.browser = await chromium.launch({ executablePath: CHROMIUM, headless: true,
      args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    this.clients = [];
    return this;
  }

  get wsUrl() { return `ws://127.0.0.1:${this.gw.port}/ocpp`; }

  // Restarts the gateway on the same port and data folder.
  async restart({ downMs = 0, onDown } = {}) {
    await this.gw.stop();
    if (onDown) await onDown();
    if (downMs) await sleep(downMs);
    this.gw = await new Gateway(this.dataDir, this.gw.port, this.args, {}).start();
  }

  // A fresh browser context (own cookies) and page; records console errors and CSP reports.
  async newPage(viewport = { width: 1280, height: 860 }) {
    const context = await this.browser.newContext({ viewport, colorScheme: 'dark' });
    const page = await context.newPage();
    page.problems = [];
    page.on('console', (m) => { if (m.type() === 'error') page.problems.push(m.text()); });
    page.on('pageerror', (e) => page.problems.push(`pageerror: ${e.message}`));
    return page;
  }

  async login(page, account) {
    await page.goto(`${this.base}/ui/`);
    await page.fill('#login-name', account.name);
    await page.fill('#login-password', account.password);
    await page.click('#login-submit');
    await page.waitForSelector('#user-role:not(:empty)', { state: 'attached' });
  }

  async shot(page, name) {
    const file = path.join(ARTIFACTS, `${name}.png`);
    // From the top: a full-page shot of a scrolled page draws the sticky header mid-page.
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: file, fullPage: true });
    return file;
  }

  // The viewport only, for docs/screenshots (README): artifacts/docs-NAME.png.
  async docShot(page, name) {
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(ARTIFACTS, `docs-${name}.png`) });
  }

  // An ocpp-rpc 1.6 charge point; `handlers` answer CSMS calls.
  async chargePoint(identity, handlers = {}) {
    const cp = new RPCClient({ endpoint: this.wsUrl, identity, protocols: ['ocpp1.6'], strictMode: true, reconnect: false });
    cp.handle('RemoteStopTransaction', () => ({ status: 'Accepted' }));
    for (const [action, fn] of Object.entries(handlers)) cp.handle(action, fn);
    cp.handle(({ method }) => { throw new Error(`unexpected ${method}`); });
    await cp.connect();
    this.clients.push(cp);
    return cp;
  }

  async stop() {
    for (const cp of this.clients || []) { try { await cp.close({ force: true }); } catch { /* gone */ } }
    if (this.browser) await this.browser.close();
    if (this.gw) await this.gw.stop();
  }
}

function sleep(ms) { return new Promise((r) => setTimeout(r, ms)); }

// CSP refusals and script errors the page logged (the tests expect none).
function cspProblems(page) { return page.problems.filter((p) => /Content Security Policy|Refused to/i.test(p)); }

module.exports = { Setup, ACCOUNTS, ARTIFACTS, sleep, cspProblems, ROOT };
