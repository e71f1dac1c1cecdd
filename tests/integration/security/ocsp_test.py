# tests/integration/security/ocsp_test.py: ISO 15118 Plug & Charge revocation checks on the real
# binary. A contract CA, an OCSP responder certificate and two contract certificates (one
# revoked) are made with `cryptography`; `openssl ocsp` serves their status. A 2.0.1 charge point
# (PyPI `ocpp`) sends Authorize with iso15118CertificateHashData and GetCertificateStatus: the
# revoked certificate is never Accepted although the token list accepts every token, the good one
# is, GetCertificateStatus carries the responder's signed answer, and a responder that is not
# allowed, or is down, is a clear Failed. Get15118EVCertificate goes to ev_certificate_command, or
# is a clear Failed without one.
import asyncio
import base64
import datetime
import os
import subprocess
import sys
import time

import pytest
import websockets
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509 import ocsp
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from ocpp.v201 import ChargePoint
from ocpp.v201 import call

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from gateway_process import GatewayProcess, free_port  # noqa: E402

NOW = datetime.datetime.now(datetime.timezone.utc)


def name(cn):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def issue(subject_cn, key, issuer_cert, issuer_key, serial, ca=False, ocsp_signing=False):
    b = (x509.CertificateBuilder().subject_name(name(subject_cn))
         .issuer_name(issuer_cert.subject if issuer_cert else name(subject_cn))
         .public_key(key.public_key()).serial_number(serial)
         .not_valid_before(NOW - datetime.timedelta(days=1))
         .not_valid_after(NOW + datetime.timedelta(days=30))
         .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if ocsp_signing:
        b = b.add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.OCSP_SIGNING]), critical=False)
    return b.sign(issuer_key, hashes.SHA256())


def pem(obj):
    if isinstance(obj, x509.Certificate):
        return obj.public_bytes(serialization.Encoding.PEM)
    return obj.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


class Pki:
    """A contract CA with a responder certificate and two contract certificates, on disk."""

    def __init__(self, d):
        self.dir = d
        ca_key = ec.generate_private_key(ec.SECP256R1())
        self.ca = issue("Test MO Root", ca_key, None, ca_key, 1, ca=True)
        resp_key = ec.generate_private_key(ec.SECP256R1())
        resp = issue("Test OCSP responder", resp_key, self.ca, ca_key, 2, ocsp_signing=True)
        self.good = issue("EMAID-GOOD", ec.generate_private_key(ec.SECP256R1()), self.ca, ca_key, 0x1001)
        self.revoked = issue("EMAID-REVOKED", ec.generate_private_key(ec.SECP256R1()), self.ca, ca_key, 0x1002)
        for f, obj in [("ca.pem", self.ca), ("resp.pem", resp), ("resp.key", resp_key)]:
            (d / f).write_bytes(pem(obj))
        # openssl ocsp's index: V(alid) or R(evoked) with its date, serial in hex, subject.
        expiry = (NOW + datetime.timedelta(days=30)).strftime("%y%m%d%H%M%SZ")
        revoked_at = (NOW - datetime.timedelta(hours=1)).strftime("%y%m%d%H%M%SZ")
        (d / "index.txt").write_text(
            f"V\t{expiry}\t\t1001\tunknown\t/CN=EMAID-GOOD\n"
            f"R\t{expiry}\t{revoked_at}\t1002\tunknown\t/CN=EMAID-REVOKED\n")

    def hash_data(self, cert, url):
        req = ocsp.OCSPRequestBuilder().add_certificate(cert, self.ca, hashes.SHA256()).build()
        return {"hash_algorithm": "SHA256", "issuer_name_hash": req.issuer_name_hash.hex(),
                "issuer_key_hash": req.issuer_key_hash.hex(),
                "serial_number": format(req.serial_number, "x"), "responder_url": url}


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    return Pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture(scope="module")
def responder(pki):
    port = free_port()
    log = open(pki.dir / "responder.log", "w")
    proc = subprocess.Popen(["openssl", "ocsp", "-index", str(pki.dir / "index.txt"), "-port", str(port),
                             "-rsigner", str(pki.dir / "resp.pem"), "-rkey", str(pki.dir / "resp.key"),
                             "-CA", str(pki.dir / "ca.pem"), "-ndays", "1"],
                            stdout=log, stderr=subprocess.STDOUT)
    # Ready once it says so; a probe connection would occupy the single-threaded responder.
    deadline = time.time() + 10
    while "waiting for OCSP client connections" not in (pki.dir / "responder.log").read_text():
        assert time.time() < deadline and proc.poll() is None, (pki.dir / "responder.log").read_text()
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    proc.kill()
    proc.wait()
    log.close()


@pytest.fixture(scope="module")
def gw(pki, responder, tmp_path_factory):
    host = responder.removeprefix("http://")
    g = GatewayProcess(tmp_path_factory.mktemp("gw"),
                       ["--unknown-tokens", "Accepted", "--ocsp-responder-hosts", host,
                        "--ocsp-trust", str(pki.dir / "ca.pem")])
    g.start()
    yield g
    g.stop()


async def exchange(gw, identity, *requests):
    async with websockets.connect(f"{gw.url}/{identity}", subprotocols=["ocpp2.0.1"]) as ws:
        cp = ChargePoint(identity, ws)
        listener = asyncio.create_task(cp.start())
        try:
            await cp.call(call.BootNotification(charging_station={"model": "M", "vendor_name": "V"},
                                                reason="PowerUp"))
            return [await cp.call(r) for r in requests]
        finally:
            listener.cancel()


def authorize(emaid, hash_data):
    return call.Authorize(id_token={"id_token": emaid, "type": "eMAID"},
                          iso15118_certificate_hash_data=hash_data)


def test_a_revoked_contract_certificate_is_never_accepted(gw, pki, responder):
    good, revoked = asyncio.run(exchange(
        gw, "PNC-1",
        authorize("EMAID-GOOD", [pki.hash_data(pki.good, responder)]),
        authorize("EMAID-REVOKED", [pki.hash_data(pki.revoked, responder)])))
    assert good.certificate_status == "Accepted", gw.logs()[-1500:]
    assert good.id_token_info["status"] == "Accepted"
    # The token list accepts every token (--unknown-tokens Accepted); the certificate decides.
    assert revoked.certificate_status == "CertificateRevoked"
    assert revoked.id_token_info["status"] == "Invalid"
    statuses = [e["extra"].get("certificate_status") for e in gw.events("PNC-1")
                if e["event_type"] == "Authorize"]
    assert statuses == ["Accepted", "CertificateRevoked"]


def test_get_certificate_status_returns_the_responders_signed_answer(gw, pki, responder):
    [answer] = asyncio.run(exchange(gw, "PNC-2", call.GetCertificateStatus(
        ocsp_request_data=pki.hash_data(pki.revoked, responder))))
    assert answer.status == "Accepted"
    response = ocsp.load_der_ocsp_response(base64.b64decode(answer.ocsp_result))
    assert response.response_status == ocsp.OCSPResponseStatus.SUCCESSFUL
    assert response.certificate_status == ocsp.OCSPCertStatus.REVOKED
    assert response.serial_number == pki.revoked.serial_number


def test_a_responder_not_allowed_or_down_is_a_clear_failure(gw, pki):
    elsewhere = f"http://127.0.0.1:{free_port()}"  # not in ocsp_responder_hosts, and down
    [status, auth] = asyncio.run(exchange(
        gw, "PNC-3", call.GetCertificateStatus(ocsp_request_data=pki.hash_data(pki.revoked, elsewhere)),
        authorize("EMAID-REVOKED", [pki.hash_data(pki.revoked, elsewhere)])))
    assert status.status == "Failed"
    assert status.status_info["reason_code"] == "OcspFailed"
    assert "not in ocsp_responder_hosts" in status.status_info["additional_info"]
    # No responder could be asked: nothing is claimed about the certificate.
    assert auth.certificate_status is None and auth.id_token_info["status"] == "Accepted"


def test_a_responder_that_is_down_fails_within_the_timeout(pki, tmp_path):
    down = free_port()
    (tmp_path / "gw").mkdir()
    g = GatewayProcess(tmp_path / "gw", ["--ocsp-responder-hosts", f"127.0.0.1:{down}",
                                         "--ocsp-trust", str(pki.dir / "ca.pem")])
    g.start()
    try:
        started = time.time()
        [status] = asyncio.run(exchange(g, "PNC-4", call.GetCertificateStatus(
            ocsp_request_data=pki.hash_data(pki.good, f"http://127.0.0.1:{down}"))))
        assert time.time() - started < 5
        assert status.status == "Failed" and "OCSP responder 127.0.0.1" in status.status_info["additional_info"]
        assert "ocsp_check_failed" in g.logs()
    finally:
        g.stop()


def get_ev_certificate(exi):
    return call.Get15118EVCertificate(iso15118_schema_version="urn:iso:15118:2:2013:MsgDef",
                                      action="Install", exi_request=exi)


def test_get_15118_ev_certificate_goes_to_the_backend_command(pki, tmp_path):
    hook = tmp_path / "pool.sh"
    # A stand-in for the contract certificate pool's client: it answers with what it was asked.
    hook.write_text('#!/bin/sh\nprintf "%s %s " "$OCPPGW_CHARGE_POINT_ID" "$OCPPGW_15118_ACTION" > '
                    f'{tmp_path}/asked\ncat >> {tmp_path}/asked\nprintf "gAFyZXNwb25zZQ==\\n"\n')
    (tmp_path / "gw").mkdir()
    g = GatewayProcess(tmp_path / "gw", ["--ev-certificate-command", f"sh {hook}"])
    g.start()
    try:
        [answer] = asyncio.run(exchange(g, "PNC-5", get_ev_certificate("gAEiZ2lmdA==")))
        assert answer.status == "Accepted" and answer.exi_response == "gAFyZXNwb25zZQ=="
        assert (tmp_path / "asked").read_text() == "PNC-5 Install gAEiZ2lmdA=="
    finally:
        g.stop()


def test_get_15118_ev_certificate_without_a_backend_says_so(gw):
    [answer] = asyncio.run(exchange(gw, "PNC-6", get_ev_certificate("gAEiZ2lmdA==")))
    assert answer.status == "Failed" and answer.exi_response == ""
    assert answer.status_info["reason_code"] == "NoContractBackend"
