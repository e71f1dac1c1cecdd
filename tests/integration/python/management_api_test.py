# tests/integration/python/management_api_test.py: the management API against the real binary:
# id tokens added, blocked and removed through the API apply to a live PyPI `ocpp` charge point
# at its next Authorize (no restart); charge point passwords set through the API apply at the
# next connection (HTTP Basic); the assigned security profile is shown; roles (viewer 403, operator 403 on passwords), the cookie's CSRF
# check, 400/404/409 answers, audit rows without secrets; and the `tokens` / `charge-points`
# commands on the stopped gateway's data folder see the same data.
import asyncio
import base64
import subprocess

import websockets
from ocpp.v16 import ChargePoint, call

from api_client import ADMIN_PASSWORD, accounts, login, request, walk
from gateway_process import BIN, GatewayProcess

PASSWORD = "charge-point-password-1"


async def authorize_all(gw, password, tags):
    """idTagInfo.status of Authorize for each tag, on one connection with HTTP Basic."""
    auth = base64.b64encode(f"PY-MGMT:{password}".encode()).decode()
    async with websockets.connect(f"{gw.url}/PY-MGMT", subprotocols=["ocpp1.6"],
                                  extra_headers={"Authorization": f"Basic {auth}"}) as ws:
        cp = ChargePoint("PY-MGMT", ws)
        listener = asyncio.create_task(cp.start())
        try:
            out = []
            for tag in tags:
                if callable(tag):
                    await tag()
                    continue
                out.append((await cp.call(call.Authorize(id_tag=tag))).id_tag_info["status"])
            return out
        finally:
            listener.cancel()


async def refused(gw, password):
    auth = base64.b64encode(f"PY-MGMT:{password}".encode()).decode()
    try:
        async with websockets.connect(f"{gw.url}/PY-MGMT", subprotocols=["ocpp1.6"],
                                      extra_headers={"Authorization": f"Basic {auth}"}):
            return False
    except websockets.exceptions.InvalidStatusCode as e:
        return e.status_code in (401, 403)


def test_tokens_and_passwords_through_the_api(tmp_path):
    gw = GatewayProcess(tmp_path, args=["--basic-auth", "required"],
                        env={"OCPPGW_ADMIN_PASSWORD": ADMIN_PASSWORD})
    gw.start()
    try:
        t = accounts(gw)
        pw = "/api/v1/charge-points/PY-MGMT/password"
        # Passwords are the admin's: the operator and the viewer are refused.
        assert request(gw, "PUT", pw, {"password": PASSWORD}, token=t["operator"])[0] == 403
        assert request(gw, "PUT", pw, {"password": PASSWORD}, token=t["viewer"])[0] == 403
        status, body = request(gw, "PUT", pw, {"password": "short"}, token=t["admin"])
        assert status == 400 and "16" in body["error"], body
        assert request(gw, "PUT", pw, {"password": PASSWORD}, token=t["admin"])[0] == 204

        # Tokens are the operator's; the viewer reads but may not change.
        status, body = request(gw, "POST", "/api/v1/id-tokens", {"id_tag": "MGMT-TAG"},
                               token=t["viewer"])
        assert status == 403, body
        status, tok = request(gw, "POST", "/api/v1/id-tokens",
                              {"id_tag": "MGMT-TAG", "expiry": "2099-01-01T00:00:00Z",
                               "parent_id": "GROUP-1"}, token=t["operator"])
        assert status == 201, tok
        assert tok["status"] == "Accepted" and tok["parent_id"] == "GROUP-1"
        assert tok["expiry"] == "2099-01-01T00:00:00.000Z"
        assert "MGMT-TAG" not in str(tok) and len(tok["id_token_hash"]) == 64
        assert request(gw, "POST", "/api/v1/id-tokens", {"id_tag": "MGMT-TAG"},
                       token=t["operator"])[0] == 409
        for bad in [{"id_tag": "X", "status": "Maybe"}, {"id_tag": "X", "expiry": "soon"},
                    {"id_tag": "X", "colour": "red"}, {"status": "Accepted"}, {"id_tag": 5},
                    {"id_tag": "X" * 37}]:
            status, body = request(gw, "POST", "/api/v1/id-tokens", bad, token=t["operator"])
            assert status == 400 and body["error"], (bad, body)
        assert request(gw, "PATCH", "/api/v1/id-tokens/NOBODY", {"status": "Blocked"},
                       token=t["operator"])[0] == 404
        assert request(gw, "PATCH", "/api/v1/id-tokens/MGMT-TAG", {}, token=t["operator"])[0] == 400

        # A cookie request without the CSRF token changes nothing.
        op_login = login(gw, "op", "op password 123")
        status, _ = request(gw, "PATCH", "/api/v1/id-tokens/MGMT-TAG", {"status": "Blocked"},
                            cookie=op_login["token"])
        assert status == 403

        async def block():
            status, body = await asyncio.to_thread(
                request, gw, "PATCH", "/api/v1/id-tokens/MGMT-TAG", {"status": "Blocked"},
                cookie=op_login["token"], csrf=op_login["csrf_token"])
            assert status == 200 and body["status"] == "Blocked", body

        async def remove():
            assert (await asyncio.to_thread(request, gw, "DELETE", "/api/v1/id-tokens/MGMT-TAG",
                                            token=t["operator"]))[0] == 204

        # One live connection: Accepted, blocked through the API, Blocked at the very next
        # Authorize, removed: the unknown-token policy (Invalid).
        statuses = asyncio.run(authorize_all(gw, PASSWORD, ["MGMT-TAG", block, "MGMT-TAG", remove,
                                                            "MGMT-TAG"]))
        assert statuses == ["Accepted", "Blocked", "Invalid"]
        assert request(gw, "GET", "/api/v1/id-tokens/MGMT-TAG", token=t["viewer"])[0] == 404

        # A new password applies at the next connection: the old one is refused.
        assert request(gw, "PUT", pw, {"password": PASSWORD + "-new"}, token=t["admin"])[0] == 204
        assert asyncio.run(refused(gw, PASSWORD))
        assert asyncio.run(authorize_all(gw, PASSWORD + "-new", ["NOT-LISTED"])) == ["Invalid"]
        assert request(gw, "DELETE", pw, token=t["admin"])[0] == 204
        assert request(gw, "DELETE", pw, token=t["admin"])[0] == 404
        assert asyncio.run(refused(gw, PASSWORD + "-new"))

        # The assigned security profile (admin) is recorded and shown in the charge point view.
        sp = "/api/v1/charge-points/PY-MGMT/security-profile"
        assert request(gw, "PUT", sp, {"profile": "2"}, token=t["operator"])[0] == 403
        assert request(gw, "PUT", sp, {"profile": "7"}, token=t["admin"])[0] == 400
        assert request(gw, "PUT", sp, {"profile": "2"}, token=t["admin"])[0] == 204
        status, view = request(gw, "GET", "/api/v1/charge-points/PY-MGMT", token=t["viewer"])
        assert status == 200 and view["security_profile"] == 2 and view["has_password"] is False

        # The list pages by hash, every token once; tags never appear.
        for i in range(7):
            assert request(gw, "POST", "/api/v1/id-tokens", {"id_tag": f"PAGE-{i}"},
                           token=t["operator"])[0] == 201
        items = walk(gw, "/api/v1/id-tokens", t["viewer"], 3, "id_token_hash")
        assert len(items) == 7 and all("PAGE" not in str(i) for i in items)
        assert request(gw, "GET", "/api/v1/id-tokens?cursor=abc", token=t["viewer"])[0] == 400
        assert request(gw, "GET", "/api/v1/id-tokens?limit=501", token=t["viewer"])[0] == 400

        status, audit = request(gw, "GET", "/api/v1/audit?limit=200", token=t["admin"])
        assert status == 200
        rows = [(a["action"], a["outcome"], a["actor"]) for a in audit["items"]]
        assert ("id_token.add", "ok", "op") in rows
        assert ("id_token.add", "conflict", "op") in rows
        assert ("id_token.update", "ok", "op") in rows
        assert ("id_token.update", "not_found", "op") in rows
        assert ("id_token.remove", "ok", "op") in rows
        assert ("charge_point.set_password", "ok", "admin") in rows
        assert ("charge_point.set_password", "invalid", "admin") in rows
        assert ("charge_point.delete_password", "not_found", "admin") in rows
        assert ("charge_point.set_security_profile", "ok", "admin") in rows
        add = next(a for a in audit["items"] if a["action"] == "id_token.add" and a["outcome"] == "ok"
                   and a["details"].get("parent_id") == "GROUP-1")
        assert add["target"] == tok["id_token_hash"]
        text = str(audit)
        assert PASSWORD not in text and "MGMT-TAG" not in text  # no secrets, no raw tags
    finally:
        assert gw.stop() == 0

    # The command line works on the stopped gateway's data folder, over the same code.
    def cli(*args):
        return subprocess.run([BIN, *args, "--data-dir", str(tmp_path)], capture_output=True,
                              text=True, timeout=60)
    listed = cli("tokens", "list")
    assert listed.returncode == 0, listed.stderr
    assert len(listed.stdout.splitlines()) == 7
    assert cli("tokens", "block", "PAGE-1").returncode == 0
    assert sum(" Blocked " in line for line in cli("tokens", "list").stdout.splitlines()) == 1
    assert cli("tokens", "remove", "MGMT-TAG").returncode == 1  # removed through the API
    assert cli("charge-points", "list").stdout == ""  # the API deleted the only password
    assert cli("charge-points", "set-security-profile", "PY-MGMT", "none").returncode == 0
    assert cli("charge-points", "set-security-profile", "PY-MGMT", "5").returncode != 0
    assert cli("charge-points", "register", "PY-CLI", "--security-profile", "1").returncode == 0
    assert cli("charge-points", "register", "PY-CLI").returncode == 1  # registered already
    assert cli("charge-points", "remove", "PY-CLI").returncode == 0
    assert cli("charge-points", "remove", "PY-CLI").returncode == 1  # nothing left to remove


class Connected:
    """A PyPI `ocpp` 1.6 charge point on the plain listener without HTTP Basic (security
    profile 0): boot() returns the BootNotification status; closed() waits for the server's
    close and returns its code."""

    def __init__(self, gw, cp_id):
        self.gw, self.cp_id = gw, cp_id

    async def __aenter__(self):
        self.ws = await websockets.connect(f"{self.gw.url}/{self.cp_id}", subprotocols=["ocpp1.6"])
        self.cp = ChargePoint(self.cp_id, self.ws)
        self.listener = asyncio.create_task(self.cp.start())
        return self

    async def __aexit__(self, *exc):
        self.listener.cancel()
        await self.ws.close()

    async def boot(self):
        res = await self.cp.call(call.BootNotification(charge_point_vendor="V", charge_point_model="M"))
        return res.status

    async def closed(self, timeout=5):
        await asyncio.wait_for(self.ws.wait_closed(), timeout)
        return self.ws.close_code


async def upgrade_status(gw, cp_id):
    """HTTP status of the upgrade refusal, or 101 when the connection opens."""
    try:
        async with websockets.connect(f"{gw.url}/{cp_id}", subprotocols=["ocpp1.6"]):
            return 101
    except websockets.exceptions.InvalidStatusCode as e:
        return e.status_code


def test_registration_removal_and_security_profile_apply_to_live_connections(tmp_path):
    """Only registered charge points are Accepted (unknown ones Rejected by the policy); a
    profile above what the connection provides closes it and refuses the next upgrade (403);
    removing a charge point closes its connection and makes it unknown again."""
    gw = GatewayProcess(tmp_path, args=["--unknown-charge-points", "Rejected"],
                        env={"OCPPGW_ADMIN_PASSWORD": ADMIN_PASSWORD})
    gw.start()
    try:
        t = accounts(gw)
        cps = "/api/v1/charge-points"
        assert request(gw, "POST", cps, {"id": "PY-REG"}, token=t["operator"])[0] == 403
        assert request(gw, "POST", cps, {"id": "PY-REG"}, token=t["viewer"])[0] == 403
        for bad in [{"id": "bad id"}, {"id": "PY-REG", "profile": "4"}, {"profile": "1"}, {"id": 7}]:
            status, body = request(gw, "POST", cps, bad, token=t["admin"])
            assert status == 400 and body["error"], (bad, body)
        status, body = request(gw, "POST", cps, {"id": "PY-REG"}, token=t["admin"])
        assert status == 201 and body == {"id": "PY-REG"}, body
        assert request(gw, "POST", cps, {"id": "PY-REG"}, token=t["admin"])[0] == 409
        status, view = request(gw, "GET", f"{cps}/PY-REG", token=t["viewer"])
        assert status == 200 and view["registered"] and view["security_profile"] is None, view
        assert view["connected"] is False

        async def scenario():
            async with Connected(gw, "PY-UNREG") as unknown:
                assert await unknown.boot() == "Rejected"
            async with Connected(gw, "PY-REG") as cp:
                assert await cp.boot() == "Accepted"
                # Profile 1 needs HTTP Basic: this connection (profile 0) no longer qualifies.
                status, _ = await asyncio.to_thread(request, gw, "PUT", f"{cps}/PY-REG/security-profile",
                                                    {"profile": "1"}, token=t["admin"])
                assert status == 204
                assert await cp.closed() == 1008
            assert await upgrade_status(gw, "PY-REG") == 403
            status, _ = await asyncio.to_thread(request, gw, "PUT", f"{cps}/PY-REG/security-profile",
                                                {"profile": ""}, token=t["admin"])
            assert status == 204
            async with Connected(gw, "PY-REG") as cp:
                assert await cp.boot() == "Accepted"
                status, live = await asyncio.to_thread(request, gw, "GET", f"{cps}/PY-REG", token=t["viewer"])
                assert live["connected"] and live["connection"]["security_profile"] == 0, live
                status, _ = await asyncio.to_thread(request, gw, "DELETE", f"{cps}/PY-REG", token=t["admin"])
                assert status == 204
                assert await cp.closed() == 1008
            # Unknown again: the policy's answer.
            async with Connected(gw, "PY-REG") as cp:
                assert await cp.boot() == "Rejected"
        asyncio.run(scenario())

        assert request(gw, "DELETE", f"{cps}/NEVER-SEEN", token=t["admin"])[0] == 404
        assert request(gw, "DELETE", f"{cps}/PY-UNREG", token=t["operator"])[0] == 403
        status, audit = request(gw, "GET", "/api/v1/audit?limit=200", token=t["admin"])
        rows = [(a["action"], a["outcome"], a["target"]) for a in audit["items"]]
        for row in [("charge_point.register", "ok", "PY-REG"), ("charge_point.register", "conflict", "PY-REG"),
                    ("charge_point.remove", "ok", "PY-REG"), ("charge_point.remove", "not_found", "NEVER-SEEN")]:
            assert row in rows, (row, rows)
        assert "charge_point_disconnected_by_operator" in gw.logs()
    finally:
        assert gw.stop() == 0
