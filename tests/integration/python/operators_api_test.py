# tests/integration/python/operators_api_test.py: REST API authentication against the real
# binary: the first admin from OCPPGW_ADMIN_PASSWORD, login, anonymous and viewer refusals, the
# cookie's CSRF check, logout ending the token, the audit log as the admin sees it; and
# `ocppgw operators add|list|remove` on the stopped gateway's data folder.
import json
import os
import subprocess
import urllib.request

from api_client import call, login
from gateway_process import BIN, GatewayProcess

ADMIN = "root"
ADMIN_PASSWORD = "integration admin password"


def cli(data_dir, *args, env=None):
    return subprocess.run([BIN, "operators", *args, "--data-dir", str(data_dir)], capture_output=True,
                          text=True, timeout=60, env={**os.environ, **(env or {})})


def test_operators_sessions_roles_csrf_and_audit(tmp_path):
    gw = GatewayProcess(tmp_path, env={"OCPPGW_ADMIN_PASSWORD": ADMIN_PASSWORD, "OCPPGW_ADMIN_NAME": ADMIN})
    gw.start()
    try:
        assert "event=first_admin_created name=root" in gw.logs()
        # Anonymous: refused everywhere but health and the login.
        for method, path in [("GET", "/api/v1/operators"), ("POST", "/api/v1/operators"),
                             ("GET", "/api/v1/session"), ("DELETE", "/api/v1/session"),
                             ("GET", "/api/v1/audit"), ("PATCH", "/api/v1/operators/x"),
                             ("DELETE", "/api/v1/operators/x")]:
            status, body, headers = call(gw, method, path, {} if method in ("POST", "PATCH") else None)
            assert status == 401, (method, path, body)
            assert headers["WWW-Authenticate"].startswith("Bearer")
        assert urllib.request.urlopen(f"http://127.0.0.1:{gw.port}/health", timeout=5).status == 200
        assert call(gw, "POST", "/api/v1/session", {"name": ADMIN, "password": "wrong password!"})[0] == 401

        admin = login(gw, ADMIN, ADMIN_PASSWORD)
        assert admin["role"] == "admin"
        status, body, _ = call(gw, "POST", "/api/v1/operators",
                               {"name": "vic", "role": "viewer", "password": "viewer password 1"},
                               token=admin["token"])
        assert status == 201, body

        viewer = login(gw, "vic", "viewer password 1")
        assert viewer["role"] == "viewer"
        assert call(gw, "GET", "/api/v1/session", token=viewer["token"])[1]["name"] == "vic"
        status, body, _ = call(gw, "POST", "/api/v1/operators",
                               {"name": "eve", "role": "admin", "password": "sneaky password"},
                               token=viewer["token"])
        assert status == 403, body
        assert call(gw, "GET", "/api/v1/audit", token=viewer["token"])[0] == 403

        # The page's way: the cookie, plus the CSRF token on state-changing requests.
        new_op = {"name": "otto", "role": "operator", "password": "operator password"}
        status, body, _ = call(gw, "POST", "/api/v1/operators", new_op, cookie=admin["token"])
        assert status == 403 and "X-CSRF-Token" in body["error"]
        status, body, _ = call(gw, "POST", "/api/v1/operators", new_op, cookie=admin["token"],
                               csrf=admin["csrf_token"])
        assert status == 201, body
        # A refused password leaves the role unchanged too; then the role alone.
        status, body, _ = call(gw, "PATCH", "/api/v1/operators/otto", {"role": "viewer", "password": "tiny-pw"},
                               token=admin["token"])
        assert status == 400, body
        status, body, _ = call(gw, "GET", "/api/v1/operators", cookie=admin["token"])
        assert status == 200
        assert {(o["name"], o["role"]) for o in body["items"]} == {
            (ADMIN, "admin"), ("vic", "viewer"), ("otto", "operator")}
        status, body, _ = call(gw, "PATCH", "/api/v1/operators/otto", {"role": "viewer"}, token=admin["token"])
        assert status == 200 and body == {"name": "otto", "role": "viewer"}, body
        # The last admin stays.
        status, body, _ = call(gw, "DELETE", f"/api/v1/operators/{ADMIN}", token=admin["token"])
        assert status == 409 and "last admin" in body["error"], body

        # Logging out ends the token.
        assert call(gw, "DELETE", "/api/v1/session", token=viewer["token"])[0] == 204
        status, body, _ = call(gw, "GET", "/api/v1/session", token=viewer["token"])
        assert status == 401, body

        status, body, _ = call(gw, "GET", "/api/v1/audit?limit=100", token=admin["token"])
        assert status == 200, body
        rows = [(r["actor"], r["action"], r["target"], r["outcome"]) for r in reversed(body["items"])]
        assert rows == [
            ("environment", "operator.add", ADMIN, "ok"),
            (ADMIN, "session.login", ADMIN, "ok"),
            (ADMIN, "operator.add", "vic", "ok"),
            ("vic", "session.login", "vic", "ok"),
            (ADMIN, "operator.add", "otto", "ok"),
            (ADMIN, "operator.update", "otto", "invalid"),
            (ADMIN, "operator.update", "otto", "ok"),
            (ADMIN, "operator.remove", ADMIN, "conflict"),
            ("vic", "session.logout", "vic", "ok"),
        ]
        assert body["next_cursor"] is None
        for secret in (ADMIN_PASSWORD, "viewer password 1", "operator password", "tiny-pw"):
            assert secret not in json.dumps(body["items"])
    finally:
        assert gw.stop() == 0

    # The command line on the stopped gateway's data folder.
    secret = {"OCPPGW_TEST_OPERATOR_PASSWORD": "command line password"}
    done = cli(tmp_path, "add", "carl", "--role", "operator", "--password-env", "OCPPGW_TEST_OPERATOR_PASSWORD",
               env=secret)
    assert done.returncode == 0, done.stderr
    listed = cli(tmp_path, "list")
    assert listed.returncode == 0, listed.stderr
    names = [line.split()[:2] for line in listed.stdout.splitlines()]
    assert names == [["carl", "operator"], ["otto", "viewer"], [ADMIN, "admin"], ["vic", "viewer"]]
    assert "command line password" not in listed.stdout

    # The gateway, started again, lets carl in; the admin variable is ignored now.
    gw = GatewayProcess(tmp_path, env={"OCPPGW_ADMIN_PASSWORD": "a different password"})
    gw.start()
    try:
        carl = login(gw, "carl", "command line password")
        assert carl["role"] == "operator"
        assert call(gw, "POST", "/api/v1/session", {"name": ADMIN, "password": "a different password"})[0] == 401
    finally:
        assert gw.stop() == 0

    removed = cli(tmp_path, "remove", "carl")
    assert removed.returncode == 0, removed.stderr
    assert "carl" not in cli(tmp_path, "list").stdout
    refused = cli(tmp_path, "remove", ADMIN)  # the last admin stays
    assert refused.returncode != 0 and "last admin" in refused.stderr
