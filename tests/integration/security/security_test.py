# tests/integration/security/security_test.py: OCPP security profiles 1-3 against the real
# `ocppgw` binary (env OCPPGW_BIN), with independent clients: the PyPI `ocpp` v16 ChargePoint
# over `websockets` and Python's own `ssl`, plus the `ocppsim` fleet (env OCPPSIM_BIN) over wss.
# Certificates are made per run by certs/make-dev-certs.sh in a temp dir; passwords are set with
# `ocppgw charge-points set-password`, as an operator would.
import asyncio
import base64
import json
import os
import socket
import sqlite3
import ssl
import subprocess
import sys
import time
import urllib.request

import pytest
import websockets
from ocpp.v16 import ChargePoint, call
from ocpp.v16.enums import RegistrationStatus

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from gateway_process import BIN, GatewayProcess, free_port  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "../../.."))
SIM = os.environ.get("OCPPSIM_BIN", os.path.join(ROOT, "build/sim/ocppsim"))
MAKE_CERTS = os.path.join(ROOT, "certs/make-dev-certs.sh")

PASSWORD = "integration-pass-0001"
SIM_COUNT = 20
SIM2_IDS = [f"SIM2-{i:02d}" for i in range(SIM_COUNT)]
SIM3_IDS = [f"SIM3-{i:02d}" for i in range(SIM_COUNT)]


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    d = tmp_path_factory.mktemp("certs")
    subprocess.run(["bash", MAKE_CERTS, str(d / "ca"), "CP-TLS-1", "CP-TLS-2", *SIM3_IDS],
                   check=True, stdout=subprocess.DEVNULL)
    # A second, untrusted CA issuing a certificate with the right CN.
    subprocess.run(["bash", MAKE_CERTS, str(d / "rogue"), "CP-TLS-1"], check=True, stdout=subprocess.DEVNULL)
    return d


def set_password(data_dir, cp, password, via="env"):
    cmd = [BIN, "--data-dir", str(data_dir), "charge-points", "set-password", cp]
    if via == "env":
        r = subprocess.run(cmd + ["--password-env", "CP_PASSWORD"], env={**os.environ, "CP_PASSWORD": password},
                           capture_output=True, text=True)
    else:
        r = subprocess.run(cmd, input=password + "\n", capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert password not in r.stdout + r.stderr
    return r


class Gateway(GatewayProcess):
    """The gateway with a plain and a TLS listener (the security options come in `args`)."""

    def __init__(self, data_dir, args):
        self.tls_port = free_port()
        self.wss = f"wss://127.0.0.1:{self.tls_port}/ocpp"
        super().__init__(data_dir, ["--tls-listen", f"127.0.0.1:{self.tls_port}", *args])

    def wait_log(self, *parts, timeout=5):
        """The first log line containing every part (waits for it)."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            for line in self.logs().splitlines():
                if all(p in line for p in parts):
                    return line
            time.sleep(0.05)
        raise AssertionError(f"no log line with {parts}:\n{self.logs()[-3000:]}")

    def booted_ids(self):
        with sqlite3.connect(os.path.join(self.data_dir, "ocppgw.db")) as db:
            rows = db.execute("SELECT DISTINCT charge_point_id FROM events WHERE event_type = 'BootNotification'")
            return {r[0] for r in rows}


@pytest.fixture(scope="module")
def gw2(certs, tmp_path_factory):
    """Profile 1 on the plain listener, profile 2 on the TLS listener."""
    data = tmp_path_factory.mktemp("gw2")
    set_password(data, "CP-TLS-1", PASSWORD, via="env")
    set_password(data, "CP-TLS-2", PASSWORD, via="stdin")
    for cp in SIM2_IDS:
        set_password(data, cp, PASSWORD)
    gw = Gateway(data, ["--basic-auth", "required", "--tls-basic-auth", "required",
                        "--tls-cert", str(certs / "ca/server.pem"), "--tls-key", str(certs / "ca/server.key")]).start()
    yield gw
    assert gw.stop() == 0


@pytest.fixture(scope="module")
def gw3(certs, tmp_path_factory):
    """Profile 3 on the TLS listener; at most 3 connections per address, 2 s handshake timeout,
    so that leaked connection slots would show."""
    data = tmp_path_factory.mktemp("gw3")
    gw = Gateway(data, ["--tls-cert", str(certs / "ca/server.pem"), "--tls-key", str(certs / "ca/server.key"),
                        "--tls-client-ca", str(certs / "ca/ca.pem"), "--max-connections-per-address", "3",
                        "--handshake-timeout", "2"]).start()
    yield gw
    assert gw.stop() == 0


def client_tls(certs, cert_id=None, issuer="ca"):
    ctx = ssl.create_default_context(cafile=str(certs / "ca/ca.pem"))
    if cert_id:
        ctx.load_cert_chain(str(certs / issuer / f"cp-{cert_id}.pem"), str(certs / issuer / f"cp-{cert_id}.key"))
    return ctx


def basic(user, password):
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


async def boot(url, identity, **kw):
    async with websockets.connect(f"{url}/{identity}", subprotocols=["ocpp1.6"], **kw) as ws:
        cp = ChargePoint(identity, ws)
        listener = asyncio.create_task(cp.start())
        try:
            r = await cp.call(call.BootNotification(charge_point_model="SecModel", charge_point_vendor="SecVendor"))
            return r.status
        finally:
            listener.cancel()


async def refused(url, identity, **kw):
    """The HTTP status of a refused upgrade (fails the test if the upgrade succeeds)."""
    try:
        async with websockets.connect(f"{url}/{identity}", subprotocols=["ocpp1.6"], **kw):
            pytest.fail("upgrade unexpectedly succeeded")
    except websockets.exceptions.InvalidStatusCode as e:
        return e.status_code, e.headers


def with_userinfo(url, user, password):
    scheme, rest = url.split("://", 1)
    return f"{scheme}://{user}:{password}@{rest}"


# ---- profiles 1 and 2: HTTP Basic ----

def test_profile2_wss_with_password_boots(gw2, certs):
    # websockets builds the Basic header from the URL's user info itself.
    url = with_userinfo(gw2.wss, "CP-TLS-1", PASSWORD)
    assert asyncio.run(boot(url, "CP-TLS-1", ssl=client_tls(certs))) == RegistrationStatus.accepted
    # The password set through stdin works as well.
    url = with_userinfo(gw2.wss, "CP-TLS-2", PASSWORD)
    assert asyncio.run(boot(url, "CP-TLS-2", ssl=client_tls(certs))) == RegistrationStatus.accepted
    assert {"CP-TLS-1", "CP-TLS-2"} <= gw2.booted_ids()


def test_profile2_wrong_password_is_401_before_upgrade(gw2, certs):
    status, headers = asyncio.run(refused(gw2.wss, "CP-TLS-1", ssl=client_tls(certs),
                                          extra_headers={"Authorization": basic("CP-TLS-1", "not-the-password-123")}))
    assert status == 401
    assert headers["WWW-Authenticate"] == 'Basic realm="ocppgw"'
    line = gw2.wait_log("handshake_refused", "cp=CP-TLS-1", "wrong password")
    assert "status=401" in line and "listener=wss" in line
    assert "not-the-password-123" not in gw2.logs()
    assert PASSWORD not in gw2.logs()


def test_profile2_missing_or_malformed_credentials_are_401(gw2, certs):
    assert asyncio.run(refused(gw2.wss, "CP-TLS-1", ssl=client_tls(certs)))[0] == 401
    gw2.wait_log("cp=CP-TLS-1", "no Authorization header")
    assert asyncio.run(refused(gw2.wss, "CP-TLS-1", ssl=client_tls(certs),
                               extra_headers={"Authorization": "Basic %%%notbase64"}))[0] == 401
    gw2.wait_log("cp=CP-TLS-1", "not valid base64")
    # The right password under another charge point's name.
    assert asyncio.run(refused(gw2.wss, "CP-TLS-1", ssl=client_tls(certs),
                               extra_headers={"Authorization": basic("CP-TLS-2", PASSWORD)}))[0] == 401
    gw2.wait_log("cp=CP-TLS-1", "does not match the charge point id")


def test_unknown_charge_point_is_401(gw2, certs):
    url = with_userinfo(gw2.wss, "CP-NOBODY", PASSWORD)
    status, _ = asyncio.run(refused(url, "CP-NOBODY", ssl=client_tls(certs)))
    assert status == 401
    gw2.wait_log("handshake_refused", "cp=CP-NOBODY", "no password is set")
    assert "CP-NOBODY" not in gw2.booted_ids()


def test_profile1_plain_ws_requires_the_password_too(gw2):
    assert asyncio.run(boot(with_userinfo(gw2.url, "CP-TLS-1", PASSWORD), "CP-TLS-1")) == RegistrationStatus.accepted
    assert asyncio.run(refused(gw2.url, "CP-TLS-1"))[0] == 401
    gw2.wait_log("listener=ws ", "cp=CP-TLS-1", "status=401")


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # TLS 1.0/1.1 on purpose
def test_tls12_is_accepted_and_tls11_refused(gw2, certs):
    ctx = client_tls(certs)
    ctx.maximum_version = ssl.TLSVersion.TLSv1_2
    url = with_userinfo(gw2.wss, "CP-TLS-1", PASSWORD)
    assert asyncio.run(boot(url, "CP-TLS-1", ssl=ctx)) == RegistrationStatus.accepted

    old = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    old.check_hostname = False
    old.verify_mode = ssl.CERT_NONE
    old.set_ciphers("DEFAULT:@SECLEVEL=0")  # let this client offer TLS 1.1 at all
    old.minimum_version = ssl.TLSVersion.TLSv1
    old.maximum_version = ssl.TLSVersion.TLSv1_1
    with socket.create_connection(("127.0.0.1", gw2.tls_port)) as raw:
        with pytest.raises(ssl.SSLError):
            old.wrap_socket(raw, server_hostname="localhost")
    gw2.wait_log("tls_handshake_failed", "unsupported protocol")


def test_api_session_cookie_is_secure_over_tls_only(gw2, certs):
    """The REST API answers on both listeners; only over TLS is its session cookie Secure. The
    operator is added with the command line while the gateway runs, as an admin would."""
    add = subprocess.run([BIN, "--data-dir", gw2.data_dir, "operators", "add", "tls-admin", "--role", "admin",
                          "--password-env", "OP_PASSWORD"], env={**os.environ, "OP_PASSWORD": "tls admin password"},
                         capture_output=True, text=True)
    assert add.returncode == 0, add.stderr
    body = json.dumps({"name": "tls-admin", "password": "tls admin password"}).encode()
    for url, context, secure in [(f"https://127.0.0.1:{gw2.tls_port}/api/v1/session", client_tls(certs), True),
                                 (f"http://127.0.0.1:{gw2.port}/api/v1/session", None, False)]:
        req = urllib.request.Request(url, data=body, method="POST", headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, context=context, timeout=10) as r:
            cookie = r.headers["Set-Cookie"]
        assert cookie.startswith("ocppgw_session=") and "HttpOnly" in cookie
        assert ("; Secure" in cookie) == secure, cookie


def test_ocppsim_fleet_over_wss_with_basic_auth(gw2, certs, tmp_path):
    report = tmp_path / "sim2.json"
    r = subprocess.run([SIM, "--url", gw2.wss, "--ca", str(certs / "ca/ca.pem"), "--password", PASSWORD,
                        "-n", str(SIM_COUNT), "--id-pattern", "SIM2-{02d}", "--first-index", "0",
                        "--fraction-201", "0.3", "--heartbeat", "1", "--connect-rate", "200", "--duration", "4",
                        "--drain", "3", "--report", str(report)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    run = json.loads(report.read_text())["run"]
    assert run["max_connected"] == SIM_COUNT, run
    assert run["connect_failures"] == 0, run
    assert run["calls_acked"] >= 2 * SIM_COUNT, run  # boot + status at least
    assert run["call_errors"] == 0 and run["timeouts"] == 0, run
    assert set(SIM2_IDS) <= gw2.booted_ids()


# ---- profile 3: client certificates ----

def test_profile3_certificate_with_matching_cn_boots(gw3, certs):
    assert asyncio.run(boot(gw3.wss, "CP-TLS-1", ssl=client_tls(certs, "CP-TLS-1"))) == RegistrationStatus.accepted
    assert "CP-TLS-1" in gw3.booted_ids()


def test_profile3_without_client_certificate_the_handshake_fails(gw3, certs):
    with pytest.raises(Exception) as e:
        asyncio.run(boot(gw3.wss, "CP-TLS-1", ssl=client_tls(certs)))
    assert not isinstance(e.value, websockets.exceptions.InvalidStatusCode)
    gw3.wait_log("tls_handshake_failed", "peer did not return a certificate")


def test_profile3_certificate_of_another_charge_point_is_rejected(gw3, certs):
    status, _ = asyncio.run(refused(gw3.wss, "CP-TLS-1", ssl=client_tls(certs, "CP-TLS-2")))
    assert status == 403
    gw3.wait_log("handshake_refused", "cp=CP-TLS-1", "CN 'CP-TLS-2' does not match")


def test_profile3_certificate_from_an_untrusted_ca_fails(gw3, certs):
    with pytest.raises(Exception) as e:
        asyncio.run(boot(gw3.wss, "CP-TLS-1", ssl=client_tls(certs, "CP-TLS-1", issuer="rogue")))
    assert not isinstance(e.value, websockets.exceptions.InvalidStatusCode)
    gw3.wait_log("tls_handshake_failed", "certificate verify failed")


def test_failed_and_stalled_handshakes_release_their_connection_slots(gw3, certs):
    # Limit is 3 per address: many failures in a row must not use slots up.
    before = gw3.logs().count("tls_handshake_failed")
    for _ in range(6):
        with socket.create_connection(("127.0.0.1", gw3.tls_port)) as raw:
            raw.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")  # plain HTTP on the TLS port
            raw.settimeout(5)
            try:
                while raw.recv(1024):  # until the gateway closes (maybe after an alert)
                    pass
            except ConnectionResetError:
                pass
    deadline = time.time() + 5
    while gw3.logs().count("tls_handshake_failed") < before + 6 and time.time() < deadline:
        time.sleep(0.05)
    assert gw3.logs().count("tls_handshake_failed") == before + 6
    assert asyncio.run(boot(gw3.wss, "CP-TLS-1", ssl=client_tls(certs, "CP-TLS-1"))) == RegistrationStatus.accepted
    # Three silent TCP connections hold every slot until the 2 s handshake timeout cuts them.
    idle = [socket.create_connection(("127.0.0.1", gw3.tls_port)) for _ in range(3)]
    try:
        time.sleep(0.3)
        with pytest.raises(Exception):
            asyncio.run(boot(gw3.wss, "CP-TLS-1", ssl=client_tls(certs, "CP-TLS-1")))
        gw3.wait_log("connection_refused", "too many connections")
        gw3.wait_log("tls_handshake_failed", "reason=timeout", timeout=6)
        time.sleep(0.3)
        assert asyncio.run(boot(gw3.wss, "CP-TLS-1", ssl=client_tls(certs, "CP-TLS-1"))) == RegistrationStatus.accepted
    finally:
        for s in idle:
            s.close()
    assert gw3.proc.poll() is None


def test_ocppsim_over_wss_with_client_certificates(gw3, certs, tmp_path):
    # ocppsim presents one certificate per process, so each charge point is its own process.
    # Each from its own loopback source address: the gateway allows 3 connections per address.
    procs = []
    for i, cp in enumerate(SIM3_IDS):
        report = tmp_path / f"{cp}.json"
        procs.append((cp, report, subprocess.Popen(
            [SIM, "--url", gw3.wss, "--ca", str(certs / "ca/ca.pem"), "--cert", str(certs / f"ca/cp-{cp}.pem"),
             "--key", str(certs / f"ca/cp-{cp}.key"), "-n", "1", "--id-pattern", cp, "--heartbeat", "1",
             "--duration", "3", "--drain", "3", "--source", f"127.0.0.{10 + i}", "--report", str(report)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)))
    for cp, report, p in procs:
        out, _ = p.communicate(timeout=60)
        assert p.returncode == 0, f"{cp}: {out}"
        run = json.loads(report.read_text())["run"]
        assert run["max_connected"] == 1 and run["connect_failures"] == 0, (cp, run)
        assert run["calls_acked"] >= 2 and run["call_errors"] == 0, (cp, run)
    assert set(SIM3_IDS) <= gw3.booted_ids()
