# tests/integration/security/tls_test.py: the wss listener as OCPP 2.0.1 part A requires it, on
# the real binary: an RSA and an ECDSA certificate on one listener so that every cipher suite
# the spec lists for a CSMS (A00.FR.318/319) completes a handshake (openssl s_client, one suite
# per run); certificates reloaded on SIGHUP and on file change without dropping connections, a
# broken file changing nothing; and 401/403 refusals written as SecurityEvents, rate-limited.
import asyncio
import json
import os
import shutil
import signal
import ssl
import subprocess
import sys
import time

import pytest
import websockets

sys.path.insert(0, os.path.dirname(__file__))
from security_test import MAKE_CERTS, Gateway, basic, boot, client_tls, refused, set_password  # noqa: E402

# TLS 1.2 suites of A00.FR.318 (ECDSA) and A00.FR.319 (RSA), OpenSSL names.
SPEC_SUITES = ["ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384",
               "ECDHE-RSA-AES128-GCM-SHA256", "ECDHE-RSA-AES256-GCM-SHA384",
               "AES128-GCM-SHA256", "AES256-GCM-SHA384"]


def rsa_server_cert(ca_dir, out_dir, name="rsa"):
    """An RSA server certificate for 127.0.0.1 signed by the dev CA."""
    key, csr, pem = (os.path.join(out_dir, f"{name}.{x}") for x in ("key", "csr", "pem"))
    ext = os.path.join(out_dir, f"{name}.ext")
    open(ext, "w").write("subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n")
    subprocess.run(["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", csr,
                    "-subj", f"/CN={name}.localhost"], check=True, capture_output=True)
    subprocess.run(["openssl", "x509", "-req", "-in", csr, "-CA", os.path.join(ca_dir, "ca.pem"),
                    "-CAkey", os.path.join(ca_dir, "ca.key"), "-CAcreateserial", "-days", "30",
                    "-extfile", ext, "-out", pem], check=True, capture_output=True)
    return pem, key


def s_client(port, *args):
    p = subprocess.run(["openssl", "s_client", "-connect", f"127.0.0.1:{port}", "-servername", "localhost",
                        *args], input="", capture_output=True, text=True, timeout=20)
    return p.returncode, p.stdout + p.stderr


def served_subject(port):
    _, out = s_client(port, "-tls1_3")
    for line in out.splitlines():
        if line.strip().startswith("subject="):
            return line.strip()
    raise AssertionError(out)


@pytest.fixture(scope="module")
def tls_certs(tmp_path_factory):
    d = tmp_path_factory.mktemp("tlscerts")
    subprocess.run(["bash", MAKE_CERTS, str(d / "ca"), "CP-RELOAD"], check=True, stdout=subprocess.DEVNULL)
    rsa = rsa_server_cert(str(d / "ca"), str(d / "ca"))
    return d, rsa


def test_every_spec_cipher_suite_completes_with_an_rsa_and_an_ecdsa_certificate(tls_certs, tmp_path):
    d, (rsa_pem, rsa_key) = tls_certs
    gw = Gateway(tmp_path, ["--tls-cert", str(d / "ca/server.pem"), "--tls-key", str(d / "ca/server.key"),
                            "--tls-extra-cert", rsa_pem, "--tls-extra-key", rsa_key]).start()
    try:
        for suite in SPEC_SUITES:
            code, out = s_client(gw.tls_port, "-tls1_2", "-cipher", suite)
            assert code == 0 and f"Cipher is {suite}" in out, (suite, out[-1500:])
        code, out = s_client(gw.tls_port, "-tls1_3")
        assert code == 0 and "TLSv1.3" in out
    finally:
        gw.stop()
    # With the ECDSA certificate alone, the RSA suites have no certificate to use: that is
    # what the extra certificate is for.
    (tmp_path / "alone").mkdir()
    gw = Gateway(tmp_path / "alone", ["--tls-cert", str(d / "ca/server.pem"), "--tls-key", str(d / "ca/server.key")]).start()
    try:
        code, out = s_client(gw.tls_port, "-tls1_2", "-cipher", "AES128-GCM-SHA256")
        assert "Cipher is AES128-GCM-SHA256" not in out
    finally:
        gw.stop()


def test_an_extra_certificate_of_the_same_key_type_is_refused_at_start(tls_certs, tmp_path):
    d, _ = tls_certs
    p = subprocess.run([os.environ.get("OCPPGW_BIN", "build/gateway/ocppgw"), "--data-dir", str(tmp_path),
                        "--listen", "127.0.0.1:0", "--tls-listen", "127.0.0.1:0",
                        "--tls-cert", str(d / "ca/server.pem"), "--tls-key", str(d / "ca/server.key"),
                        "--tls-extra-cert", str(d / "ca/server.pem"), "--tls-extra-key", str(d / "ca/server.key")],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode != 0
    assert "same key type" in p.stdout + p.stderr


def test_certificates_reload_on_sighup_and_on_file_change_keeping_connections(tls_certs, tmp_path):
    d, (rsa_pem, rsa_key) = tls_certs
    live = tmp_path / "live"
    live.mkdir()
    shutil.copy(d / "ca/server.pem", live / "server.pem")
    shutil.copy(d / "ca/server.key", live / "server.key")
    (tmp_path / "data").mkdir()
    gw = Gateway(tmp_path / "data", ["--tls-cert", str(live / "server.pem"), "--tls-key", str(live / "server.key")]).start()
    try:
        first = served_subject(gw.tls_port)

        async def scenario():
            ctx = client_tls(d)
            async with websockets.connect(f"{gw.wss}/CP-RELOAD", subprotocols=["ocpp1.6"], ssl=ctx) as ws:
                # Swap in the RSA certificate and signal: new connections get it ...
                shutil.copy(rsa_pem, live / "server.pem")
                shutil.copy(rsa_key, live / "server.key")
                gw.proc.send_signal(signal.SIGHUP)
                gw.wait_log("tls_reloaded", "trigger=SIGHUP")
                assert "rsa.localhost" in served_subject(gw.tls_port)
                # ... while the connection made before keeps working.
                await ws.send('[2,"hb-1","Heartbeat",{}]')
                reply = await asyncio.wait_for(ws.recv(), 5)
                assert '"hb-1"' in reply and "currentTime" in reply
        asyncio.run(scenario())

        # A broken file changes nothing: logged, the RSA certificate still served.
        open(live / "server.pem", "w").write("-----BEGIN CERTIFICATE-----\nbroken\n-----END CERTIFICATE-----\n")
        gw.proc.send_signal(signal.SIGHUP)
        line = gw.wait_log("tls_reload_failed", "trigger=SIGHUP")
        assert "previous certificate stays" in line
        assert "rsa.localhost" in served_subject(gw.tls_port)

        # A renewal tool replacing the files, with no signal: picked up within the poll (10 s).
        shutil.copy(d / "ca/server.pem", live / "server.pem")
        shutil.copy(d / "ca/server.key", live / "server.key")
        gw.wait_log("tls_reloaded", 'trigger="file changed"', timeout=25)
        assert served_subject(gw.tls_port) == first
    finally:
        gw.stop()


def test_refusals_are_security_events_and_a_flood_is_bounded(tls_certs, tmp_path):
    d, _ = tls_certs
    data = tmp_path / "data"
    data.mkdir()
    set_password(data, "CP-SEC-1", "the right password 42")
    gw = Gateway(data, ["--basic-auth", "required", "--tls-basic-auth", "required",
                        "--tls-cert", str(d / "ca/server.pem"), "--tls-key", str(d / "ca/server.key")]).start()
    try:
        url = gw.url
        for i in range(12):  # a burst of wrong passwords for one id
            status, _ = asyncio.run(refused(url, "CP-SEC-1",
                                            extra_headers={"Authorization": basic("CP-SEC-1", f"wrong-{i}-password")}))
            assert status == 401
        time.sleep(1.0)  # the sink's group commit
        events = [e for e in gw.events("CP-SEC-1") if e["event_type"] == "SecurityEvent"]
        assert len(events) == 1, "one event per charge point per 10 s"
        extra = events[0]["extra"]
        assert extra["source"] == "gateway" and extra["status"] == 401
        assert extra["type"] == "InvalidChargingStationCredentials"
        assert extra["remote_address"].startswith("127.0.0.1:") and "wrong password" in extra["reason"]
        assert "wrong-0-password" not in json.dumps(events[0])
    finally:
        gw.stop()
