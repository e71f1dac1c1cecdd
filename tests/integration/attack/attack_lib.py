# tests/integration/attack/attack_lib.py: what the attack suite's cases share. Nothing here is
# new plumbing: the gateway process with a TLS listener, passwords, client TLS contexts and the
# certificate script come from tests/integration/security/security_test.py; the raw WebSocket
# client, the raw HTTP exchange and the victim fleet from tests/integration/robustness/harness.py.
# Added here: certificates that make-dev-certs.sh cannot make (expired, not yet valid, server
# purpose only), signed with its CA key by `cryptography`; a raw read of one HTTP answer; and
# the "still serving others" check every case ends with.
import asyncio
import contextlib
import datetime
import os
import socket
import ssl
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "security"))
sys.path.insert(0, os.path.join(HERE, "..", "robustness"))
sys.path.insert(0, os.path.join(HERE, ".."))

from cryptography import x509  # noqa: E402
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID  # noqa: E402
from gateway_process import BIN  # noqa: E402,F401
from harness import (BOOT16, RawWs, boot_raw, call_frame, http_exchange, parse_http_head,  # noqa: E402,F401
                     upgrade_request, ws_frame)
from security_test import (MAKE_CERTS, PASSWORD, Gateway, basic, boot, client_tls, refused,  # noqa: E402,F401
                           set_password)


def make_certs(directory, *ids):
    subprocess.run(["bash", MAKE_CERTS, str(directory), *ids], check=True, stdout=subprocess.DEVNULL)
    return directory


def issue(ca_dir, out_dir, name, cn, not_before, not_after, eku=ExtendedKeyUsageOID.CLIENT_AUTH):
    """A certificate for `cn` signed by the CA of make-dev-certs.sh in `ca_dir`, with the given
    validity and extended key usage; returns (cert path, key path)."""
    ca_cert = x509.load_pem_x509_certificate(open(os.path.join(ca_dir, "ca.pem"), "rb").read())
    ca_key = serialization.load_pem_private_key(open(os.path.join(ca_dir, "ca.key"), "rb").read(), None)
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)]))
            .issuer_name(ca_cert.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(not_before)
            .not_valid_after(not_after)
            .add_extension(x509.ExtendedKeyUsage([eku]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    cert_path, key_path = os.path.join(out_dir, f"{name}.pem"), os.path.join(out_dir, f"{name}.key")
    open(cert_path, "wb").write(cert.public_bytes(serialization.Encoding.PEM))
    open(key_path, "wb").write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                 serialization.NoEncryption()))
    return cert_path, key_path


def days(n):
    return datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=n)


def tls_context(ca_pem, cert=None, key=None):
    ctx = ssl.create_default_context(cafile=str(ca_pem))
    if cert:
        ctx.load_cert_chain(str(cert), str(key))
    return ctx


def set_profile(data_dir, cp, profile):
    """Assigns a security profile with the command line, as an operator would."""
    r = subprocess.run([BIN, "--data-dir", str(data_dir), "charge-points", "set-security-profile", cp, str(profile)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def read_answer(sock, timeout=5):
    """(status, headers, body, closed) of one HTTP answer on a raw socket, reading until the
    peer closes or `timeout`; closed is True when the peer closed (EOF or reset)."""
    sock.settimeout(timeout)
    buf, closed = b"", False
    deadline = time.monotonic() + timeout
    with contextlib.suppress(socket.timeout):
        while time.monotonic() < deadline:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                closed = True
                break
            if not chunk:
                closed = True
                break
            buf += chunk
    if b"\r\n\r\n" not in buf:
        return None, {}, buf, closed
    head, body = buf.split(b"\r\n\r\n", 1)
    status, headers = parse_http_head(head)
    return status, headers, body, closed


def serving(port, cp, source=None, version="ocpp1.6"):
    """Asserts that the gateway still serves a well-behaved charge point on the plain listener:
    it upgrades, boots and gets a Heartbeat answered. Returns the boot reply."""
    ws = RawWs(port, source=source)
    try:
        status, _, body = ws.open(f"/ocpp/{cp}", protocols=(version,))
        assert status == 101, f"{cp}: upgrade answered {status} {body[:100]!r}"
        boot_payload = BOOT16 if version == "ocpp1.6" else {
            "reason": "PowerUp", "chargingStation": {"model": "M", "vendorName": "V"}}
        reply = ws.call(f"{cp}-boot", "BootNotification", boot_payload)
        assert reply[0] == 3, reply
        hb = ws.call(f"{cp}-hb", "Heartbeat", {})
        assert hb[0] == 3 and "currentTime" in hb[2], hb
        return reply
    finally:
        ws.shutdown()


def wait_log(gw, *parts, timeout=5):
    """The first line of the gateway's log containing every part (waits for it); the same as
    security_test.Gateway.wait_log, for any gateway process."""
    deadline = time.monotonic() + timeout
    while True:
        for line in gw.logs().splitlines():
            if all(p in line for p in parts):
                return line
        if time.monotonic() > deadline:
            raise AssertionError(f"no log line with {parts}:\n{gw.logs()[-3000:]}")
        time.sleep(0.05)


def run(coro):
    return asyncio.run(coro)
