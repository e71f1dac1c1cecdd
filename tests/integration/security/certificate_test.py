# tests/integration/security/certificate_test.py: SignCertificate end to end on the real binary,
# with the PyPI `ocpp` client for both versions and `cryptography` making keys and CSRs. The
# returned chain must verify against the CA and name the charge point; the charge point then
# connects under security profile 3 with it. CSRs for another id or with a weak key are refused
# and written as SecurityEvents; a CA kept elsewhere signs through csr_sign_command.
import asyncio
import os
import ssl
import subprocess
import sys

import pytest
import websockets
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from ocpp.routing import after, on
from ocpp.v16 import ChargePoint as ChargePoint16
from ocpp.v16 import call as call16
from ocpp.v16 import call_result as result16
from ocpp.v16.enums import Action as Action16
from ocpp.v201 import ChargePoint as ChargePoint201
from ocpp.v201 import call as call201
from ocpp.v201 import call_result as result201
from ocpp.v201.enums import Action as Action201

sys.path.insert(0, os.path.dirname(__file__))
from security_test import MAKE_CERTS, Gateway  # noqa: E402

CHAIN_WAIT_S = 10


def make_csr(cn, key=None):
    key = key or ec.generate_private_key(ec.SECP256R1())
    csr = (x509.CertificateSigningRequestBuilder()
           .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)]))
           .sign(key, hashes.SHA256()))
    return key, csr.public_bytes(serialization.Encoding.PEM).decode()


class Station16(ChargePoint16):
    def __init__(self, *args):
        super().__init__(*args)
        self.chains = asyncio.Queue()

    @on(Action16.certificate_signed)
    async def on_certificate_signed(self, **_):
        return result16.CertificateSigned(status="Accepted")

    # An `after` handler runs once the answer is sent, so the test cannot close the connection
    # between the chain arriving and the gateway hearing "Accepted".
    @after(Action16.certificate_signed)
    async def after_certificate_signed(self, certificate_chain, **_):
        await self.chains.put(certificate_chain)


class Station201(ChargePoint201):
    def __init__(self, *args):
        super().__init__(*args)
        self.chains = asyncio.Queue()

    @on(Action201.certificate_signed)
    async def on_certificate_signed(self, **_):
        return result201.CertificateSigned(status="Accepted")

    @after(Action201.certificate_signed)
    async def after_certificate_signed(self, certificate_chain, certificate_type=None, **_):
        await self.chains.put((certificate_chain, certificate_type))


async def boot(cp, version):
    if version == "1.6":
        r = await cp.call(call16.BootNotification(charge_point_model="M", charge_point_vendor="V"))
    else:
        r = await cp.call(call201.BootNotification(
            charging_station={"model": "M", "vendor_name": "V"}, reason="PowerUp"))
    return r.status


async def request_certificate(url, identity, version, csr, ssl_ctx=None):
    """Boots, sends SignCertificate; returns (answer, chain or None)."""
    subprotocol = "ocpp1.6" if version == "1.6" else "ocpp2.0.1"
    async with websockets.connect(f"{url}/{identity}", subprotocols=[subprotocol], ssl=ssl_ctx) as ws:
        cp = (Station16 if version == "1.6" else Station201)(identity, ws)
        listener = asyncio.create_task(cp.start())
        try:
            assert await boot(cp, version) == "Accepted"
            if version == "1.6":
                answer = await cp.call(call16.SignCertificate(csr=csr))
            else:
                answer = await cp.call(call201.SignCertificate(
                    csr=csr, certificate_type="ChargingStationCertificate"))
            wait = CHAIN_WAIT_S if answer.status == "Accepted" else 2
            try:
                chain = await asyncio.wait_for(cp.chains.get(), wait)
            except asyncio.TimeoutError:
                chain = None
            return answer, chain
        finally:
            listener.cancel()


async def boot_with_certificate(gw, identity, version, cert_pem, key, ca_pem):
    """Connects to the profile 3 listener with the issued certificate; returns the boot status."""
    d = os.path.join(gw.data_dir, "client")
    os.makedirs(d, exist_ok=True)
    cert_file, key_file = os.path.join(d, f"{identity}.pem"), os.path.join(d, f"{identity}.key")
    open(cert_file, "w").write(cert_pem)
    open(key_file, "wb").write(key.private_bytes(serialization.Encoding.PEM,
                                                 serialization.PrivateFormat.PKCS8,
                                                 serialization.NoEncryption()))
    ctx = ssl.create_default_context(cafile=ca_pem)
    ctx.load_cert_chain(cert_file, key_file)
    subprotocol = "ocpp1.6" if version == "1.6" else "ocpp2.0.1"
    async with websockets.connect(f"{gw.wss}/{identity}", subprotocols=[subprotocol], ssl=ctx) as ws:
        cp = (Station16 if version == "1.6" else Station201)(identity, ws)
        listener = asyncio.create_task(cp.start())
        try:
            return await boot(cp, version)
        finally:
            listener.cancel()


def verify_chain(chain_pem, ca_pem, identity, key):
    certs = x509.load_pem_x509_certificates(chain_pem.encode())
    leaf = certs[0]
    ca = x509.load_pem_x509_certificate(open(ca_pem, "rb").read())
    leaf.verify_directly_issued_by(ca)
    assert leaf.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value == identity
    assert leaf.public_key().public_bytes(serialization.Encoding.DER,
                                          serialization.PublicFormat.SubjectPublicKeyInfo) == \
        key.public_key().public_bytes(serialization.Encoding.DER,
                                      serialization.PublicFormat.SubjectPublicKeyInfo)
    eku = leaf.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    assert ExtendedKeyUsageOID.CLIENT_AUTH in eku
    assert not leaf.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    return leaf


@pytest.fixture(scope="module")
def ca(tmp_path_factory):
    d = tmp_path_factory.mktemp("csrca")
    subprocess.run(["bash", MAKE_CERTS, str(d)], check=True, stdout=subprocess.DEVNULL)
    return d


@pytest.fixture(scope="module")
def gw(ca, tmp_path_factory):
    """Signs with the dev CA; its wss listener takes client certificates of the same CA
    (profile 3), so an issued certificate is one the gateway itself accepts."""
    g = Gateway(tmp_path_factory.mktemp("gwcsr"),
                ["--tls-cert", str(ca / "server.pem"), "--tls-key", str(ca / "server.key"),
                 "--tls-client-ca", str(ca / "ca.pem"),
                 "--csr-ca-cert", str(ca / "ca.pem"), "--csr-ca-key", str(ca / "ca.key")]).start()
    yield g
    assert g.stop() == 0


def certificate_signed_events(gw, identity):
    return [e for e in gw.events(identity)
            if e["event_type"] == "CsmsCall" and e["ocpp_action"] == "CertificateSigned"]


@pytest.mark.parametrize("version,key", [("2.0.1", "ec"), ("1.6", "rsa")])
def test_a_csr_comes_back_signed_and_the_certificate_opens_profile_3(gw, ca, version, key):
    identity = f"CSR-OK-{version}"
    private = ec.generate_private_key(ec.SECP256R1()) if key == "ec" else \
        rsa.generate_private_key(public_exponent=65537, key_size=2048)
    _, csr = make_csr(identity, private)
    answer, chain = asyncio.run(request_certificate(gw.url, identity, version, csr))
    assert answer.status == "Accepted"
    assert chain is not None, "no CertificateSigned within %d s:\n%s" % (CHAIN_WAIT_S, gw.logs()[-2000:])
    if version == "2.0.1":
        chain, certificate_type = chain
        assert certificate_type == "ChargingStationCertificate"
    verify_chain(chain, str(ca / "ca.pem"), identity, private)
    status = asyncio.run(boot_with_certificate(gw, identity, version, chain, private, str(ca / "ca.pem")))
    assert status == "Accepted"
    gw.wait_log("certificate_signed", identity)
    [sent] = certificate_signed_events(gw, identity)
    assert sent["extra"]["outcome"] == "result" and sent["extra"]["response"]["status"] == "Accepted"
    assert sent["extra"]["requested_by"] == "gateway"


def test_a_csr_for_another_id_is_refused_and_recorded_as_a_security_event(gw):
    _, csr = make_csr("SOMEONE-ELSE")
    answer, chain = asyncio.run(request_certificate(gw.url, "CSR-THIEF", "2.0.1", csr))
    assert answer.status == "Rejected"
    assert answer.status_info["reason_code"] == "InvalidCommonName"
    assert chain is None
    security = [e for e in gw.events("CSR-THIEF") if e["event_type"] == "SecurityEvent"]
    assert len(security) == 1
    assert security[0]["extra"]["type"] == "InvalidCertificateRequest"
    assert security[0]["extra"]["reason_code"] == "InvalidCommonName"
    assert "SOMEONE-ELSE" in security[0]["extra"]["reason"]
    assert certificate_signed_events(gw, "CSR-THIEF") == []
    gw.wait_log("certificate_request_refused", "CSR-THIEF", "InvalidCommonName")


def test_a_weak_key_is_refused(gw):
    weak = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    _, csr = make_csr("CSR-WEAK", weak)
    answer, chain = asyncio.run(request_certificate(gw.url, "CSR-WEAK", "1.6", csr))
    assert answer.status == "Rejected" and chain is None
    [event] = [e for e in gw.events("CSR-WEAK") if e["event_type"] == "SecurityEvent"]
    assert event["extra"]["reason_code"] == "KeyNotAllowed"


def test_a_ca_kept_elsewhere_signs_through_the_command(ca, tmp_path):
    """csr_sign_command: the CSR on stdin, the identity in the environment, the chain on stdout."""
    script = tmp_path / "sign.sh"
    seen = tmp_path / "seen"
    script.write_text(f"""#!/bin/sh
set -e
echo "$OCPPGW_CHARGE_POINT_ID $OCPPGW_CERTIFICATE_TYPE" > {seen}
printf 'basicConstraints=CA:FALSE\\nextendedKeyUsage=clientAuth\\n' > {tmp_path}/ext
openssl x509 -req -in /dev/stdin -CA {ca}/ca.pem -CAkey {ca}/ca.key -CAcreateserial \
  -CAserial {tmp_path}/serial -days 30 -extfile {tmp_path}/ext 2>/dev/null
""")
    g = Gateway(tmp_path / "gw", ["--tls-cert", str(ca / "server.pem"), "--tls-key", str(ca / "server.key"),
                                  "--tls-client-ca", str(ca / "ca.pem"),
                                  "--csr-sign-command", f"sh {script}"])
    (tmp_path / "gw").mkdir()
    g.start()
    try:
        key, csr = make_csr("CSR-HOOK")
        answer, chain = asyncio.run(request_certificate(g.url, "CSR-HOOK", "1.6", csr))
        assert answer.status == "Accepted" and chain is not None, g.logs()[-2000:]
        verify_chain(chain, str(ca / "ca.pem"), "CSR-HOOK", key)
        assert seen.read_text().split() == ["CSR-HOOK", "ChargingStationCertificate"]
    finally:
        assert g.stop() == 0
