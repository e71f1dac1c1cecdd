# tests/integration/attack/test_profiles.py: the negative matrix of security profiles 1-3 on the
# real binary, the cases tests/integration/security does not already assert exactly:
#   profile 1 (Basic over ws): wrong password, unknown id (401, the same body for both);
#   profiles 2 and 3 (wss): TLS 1.0 alone and TLS 1.1 alone refused in the handshake;
#   profile 3: an expired client certificate, one not valid yet, and a certificate of the right
#     CA made for servers only (no clientAuth) refused in the handshake;
#   downgrade: a charge point assigned profile 2 or 3 refused (403, SecurityEvent) on every
#     listener that provides less (plain ws with Basic, wss with Basic instead of a certificate),
#     and accepted on its own profile;
#   a second connection with a connected charge point's id: without the password it is refused
#     and the first connection goes on; with it, the newer wins (close 1000 to the older).
# Already asserted in tests/integration/security/security_test.py (not repeated here):
#   profile 2 wrong password (test_profile2_wrong_password_is_401_before_upgrade), no or
#   malformed password and another id's password (test_profile2_missing_or_malformed_
#   credentials_are_401), unknown id (test_unknown_charge_point_is_401), profile 1 without a
#   password (test_profile1_plain_ws_requires_the_password_too), TLS 1.0-1.1 offered together
#   (test_tls12_is_accepted_and_tls11_refused), profile 3 without a certificate, with another
#   id's certificate (403) and with another CA's certificate (test_profile3_*).
# Every case ends by showing that the gateway still serves a charge point on the same listener.
import socket
import ssl
import time

import pytest
import websockets
from attack_lib import (PASSWORD, Gateway, basic, boot, days, issue, make_certs, read_answer, refused, run,
                        serving, set_password, set_profile, tls_context)
from cryptography.x509.oid import ExtendedKeyUsageOID
from harness import RawWs, upgrade_request
from ocpp.v16.enums import RegistrationStatus


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    d = tmp_path_factory.mktemp("certs")
    make_certs(d / "ca", "CP-P2", "CP-P3", "CP-OK")
    ca = d / "ca"
    extra = {
        "expired": issue(ca, ca, "expired", "CP-OK", days(-30), days(-1)),
        "future": issue(ca, ca, "future", "CP-OK", days(1), days(30)),
        "server-only": issue(ca, ca, "server-only", "CP-OK", days(-1), days(30), eku=ExtendedKeyUsageOID.SERVER_AUTH),
    }
    return d, extra


@pytest.fixture(scope="module")
def gw12(certs, tmp_path_factory):
    """Profile 1 on the plain listener, profile 2 on the wss listener. CP-P2 is assigned profile
    2, CP-P3 profile 3 (both have passwords, so only the profile can refuse them)."""
    d, _ = certs
    data = tmp_path_factory.mktemp("gw12")
    for cp in ("CP-P1", "CP-P2", "CP-P3", "CP-DUP"):
        set_password(data, cp, PASSWORD)
    set_profile(data, "CP-P2", 2)
    set_profile(data, "CP-P3", 3)
    gw = Gateway(data, ["--basic-auth", "required", "--tls-basic-auth", "required",
                        "--tls-cert", str(d / "ca/server.pem"), "--tls-key", str(d / "ca/server.key")]).start()
    yield gw
    assert gw.stop() == 0


@pytest.fixture(scope="module")
def gw03(certs, tmp_path_factory):
    """No authentication on the plain listener (profile 0), profile 3 on the wss listener."""
    d, _ = certs
    data = tmp_path_factory.mktemp("gw03")
    set_profile(data, "CP-P2", 2)
    set_profile(data, "CP-P3", 3)
    gw = Gateway(data, ["--tls-cert", str(d / "ca/server.pem"), "--tls-key", str(d / "ca/server.key"),
                        "--tls-client-ca", str(d / "ca/ca.pem")]).start()
    yield gw
    assert gw.stop() == 0


def basic_ok(gw, cp="CP-P1", source="127.0.0.1"):
    """A charge point with the right password still boots on the plain (profile 1) listener."""
    async def go():
        return await boot(gw.url, cp, extra_headers={"Authorization": basic(cp, PASSWORD)},
                          local_addr=(source, 0))
    assert run(go()) == RegistrationStatus.accepted


def p3_ok(gw, certs, cp="CP-OK"):
    d, _ = certs
    ctx = tls_context(d / "ca/ca.pem", d / f"ca/cp-{cp}.pem", d / f"ca/cp-{cp}.key")
    assert run(boot(gw.wss, cp, ssl=ctx)) == RegistrationStatus.accepted


def security_events(gw, cp):
    return [e for e in gw.events(cp) if e["event_type"] == "SecurityEvent"]


def wait_for(predicate, timeout=5):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    return predicate()


# ---- profile 1: HTTP Basic over ws ----

def test_profile1_wrong_password_and_unknown_id_are_401_alike(gw12, note):
    # Each from its own loopback address: the per-address failure budget of one test must not
    # spill into the next.
    async def go(cp, password, source):
        return await refused(gw12.url, cp, extra_headers={"Authorization": basic(cp, password)},
                             local_addr=(source, 0))
    status_w, hdr_w = run(go("CP-P1", "wrong-password-0001", "127.0.1.1"))
    status_u, hdr_u = run(go("CP-NOBODY-1", PASSWORD, "127.0.1.1"))
    assert (status_w, status_u) == (401, 401)
    assert hdr_w["WWW-Authenticate"] == hdr_u["WWW-Authenticate"] == 'Basic realm="ocppgw"'
    gw12.wait_log("handshake_refused", "cp=CP-P1", "listener=ws ", "wrong password")
    gw12.wait_log("handshake_refused", "cp=CP-NOBODY-1", "no password is set")
    # The bodies are the same: a prober cannot tell which ids exist.
    bodies = []
    for cp, pw in (("CP-P1", "wrong-password-0002"), ("CP-NOBODY-2", PASSWORD)):
        with socket.create_connection(("127.0.0.1", gw12.port), source_address=("127.0.1.2", 0)) as s:
            s.sendall(upgrade_request(gw12.port, f"/ocpp/{cp}", headers=[("Authorization", basic(cp, pw))]))
            status, _, body, _ = read_answer(s)
            bodies.append((status, body))
    assert bodies[0] == bodies[1] and bodies[0][0] == 401, bodies
    basic_ok(gw12)
    note(f"401/401, body {bodies[0][1].strip()!r} for both")


# ---- TLS 1.0 and 1.1 alone, on the profile 2 and the profile 3 listener ----

@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("listener", ["profile2", "profile3"])
@pytest.mark.parametrize("version", ["TLSv1", "TLSv1_1"])
def test_old_tls_versions_are_refused_in_the_handshake(listener, version, gw12, gw03, certs, note):
    gw = gw12 if listener == "profile2" else gw03
    before = gw.logs().count("tls_handshake_failed")
    old = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    old.check_hostname = False
    old.verify_mode = ssl.CERT_NONE
    old.set_ciphers("DEFAULT:@SECLEVEL=0")
    old.minimum_version = old.maximum_version = getattr(ssl.TLSVersion, version)
    with socket.create_connection(("127.0.0.1", gw.tls_port)) as raw:
        with pytest.raises(ssl.SSLError) as e:
            old.wrap_socket(raw, server_hostname="localhost")
    line = wait_for(lambda: [x for x in gw.logs().splitlines() if "tls_handshake_failed" in x][before:])
    assert line and "unsupported protocol" in line[0], line
    if listener == "profile2":
        ctx = tls_context(certs[0] / "ca/ca.pem")
        assert run(boot(gw.wss, "CP-P2", ssl=ctx, extra_headers={"Authorization": basic("CP-P2", PASSWORD)})) == \
            RegistrationStatus.accepted
    else:
        p3_ok(gw, certs)
    note(f"client: {e.value.reason}; log: reason=unsupported protocol")


# ---- profile 3: certificates of the right CA that must not open the door ----

VERIFY_REASON = {"expired": "certificate has expired", "future": "certificate is not yet valid",
                 "server-only": "unsuitable certificate purpose"}


@pytest.mark.parametrize("kind", ["expired", "future", "server-only"])
def test_profile3_invalid_certificate_of_the_right_ca_fails_the_handshake(kind, gw03, certs, note):
    d, extra = certs
    cert, key = extra[kind]
    before = gw03.logs().count("tls_handshake_failed")
    connected_before = gw03.logs().count("event=connected cp=CP-OK ")
    with pytest.raises(Exception) as e:
        run(boot(gw03.wss, "CP-OK", ssl=tls_context(d / "ca/ca.pem", cert, key)))
    # Refused in the TLS handshake, never by an HTTP status after it.
    assert not isinstance(e.value, websockets.exceptions.InvalidStatusCode), e.value
    lines = wait_for(lambda: [x for x in gw03.logs().splitlines() if "tls_handshake_failed" in x][before:])
    assert lines and "certificate verify failed" in lines[0], lines
    # The log says which check failed (OpenSSL's verify result), not just that one did.
    assert f"client certificate: {VERIFY_REASON[kind]}" in lines[0], lines[0]
    assert gw03.logs().count("event=connected cp=CP-OK ") == connected_before
    p3_ok(gw03, certs)
    note(f"client: {type(e.value).__name__}; log: {lines[0].split('reason=')[1][:110]}")


# ---- downgrade: a charge point assigned profile 2 or 3 on a listener that provides less ----

@pytest.mark.parametrize("cp,where", [("CP-P2", "profile1"), ("CP-P3", "profile1"), ("CP-P3", "profile2"),
                                      ("CP-P2", "profile0"), ("CP-P3", "profile0")])
def test_downgrade_to_a_lower_profile_is_403_and_a_security_event(cp, where, gw12, gw03, certs, note):
    d, _ = certs
    auth = {"Authorization": basic(cp, PASSWORD)}
    if where == "profile1":
        gw, status = gw12, run(refused(gw12.url, cp, extra_headers=auth))
    elif where == "profile2":
        gw, status = gw12, run(refused(gw12.wss, cp, ssl=tls_context(d / "ca/ca.pem"), extra_headers=auth))
    else:
        gw, status = gw03, run(refused(gw03.url, cp))
    assert status[0] == 403, status
    assigned = cp[-1]
    provided = where[-1]
    line = gw.wait_log("handshake_refused", f"cp={cp}", "status=403",
                       f"assigned security profile {assigned}; this listener provides profile {provided}")
    # A SecurityEvent of that charge point (one per id per 10 s: any refusal of this id counts).
    events = wait_for(lambda: security_events(gw, cp))
    assert events, f"no SecurityEvent for {cp}"
    assert any(e["extra"]["type"] == "SecurityProfileOrCertificateRefused" and e["extra"]["status"] == 403
               and "assigned security profile" in e["extra"]["reason"] for e in events), events
    # On its own profile (or a higher one) the same charge point is accepted.
    if cp == "CP-P2" and gw is gw12:
        ctx = tls_context(d / "ca/ca.pem")
        assert run(boot(gw12.wss, cp, ssl=ctx, extra_headers=auth)) == RegistrationStatus.accepted
    else:
        p3_ok(gw03, certs, cp)
    note(line.split("reason=")[1][:90])


# ---- a second connection with the id of a connected charge point ----

def test_second_connection_without_the_password_does_not_displace_the_first(gw12, note):
    ws = RawWs(gw12.port)
    status, _, _ = ws.open("/ocpp/CP-DUP", headers=[("Authorization", basic("CP-DUP", PASSWORD))])
    assert status == 101
    assert ws.call("dup-1", "Heartbeat", {})[0] == 3
    try:
        for auth in ([], [("Authorization", basic("CP-DUP", "not-the-password-99"))]):
            with socket.create_connection(("127.0.0.1", gw12.port), source_address=("127.0.1.3", 0)) as s:
                s.sendall(upgrade_request(gw12.port, "/ocpp/CP-DUP", headers=auth))
                assert read_answer(s)[0] == 401
        # The first connection was not closed and still works.
        reply = ws.call("dup-2", "Heartbeat", {})
        assert reply[0] == 3 and reply[1] == "dup-2"
        assert "connection_replaced cp=CP-DUP" not in gw12.logs()
    finally:
        ws.shutdown()
    stored = {e.get("message_id") for e in gw12.events("CP-DUP")}
    assert {"dup-1", "dup-2"} <= stored, stored
    note("two unauthenticated attempts 401; the connected one answered and kept")
