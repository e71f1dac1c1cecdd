# tests/integration/api_client.py: the REST API as the pytest suites use it (docs/api.md):
# one request with a bearer token or the session cookie, logging in, creating operators, walking
# a paged list, and the CSMS call route. Shared by every suite that talks to the API.
import json
import urllib.error
import urllib.parse
import urllib.request

ADMIN_PASSWORD = "integration admin password"
# Give a gateway this environment to start with admin `admin` / ADMIN_PASSWORD.
ADMIN_ENV = {"OCPPGW_ADMIN_PASSWORD": ADMIN_PASSWORD}


def http(port, method, path, body=None, token=None, cookie=None, csrf=None, timeout=20, raw_body=None):
    """(status, body bytes, headers) of one request to 127.0.0.1:`port`; `raw_body` (bytes) is
    sent as it is instead of `body` as JSON."""
    data = raw_body if raw_body is not None else (None if body is None else json.dumps(body).encode())
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    if cookie:
        req.add_header("Cookie", f"ocppgw_session={cookie}")
    if csrf:
        req.add_header("X-CSRF-Token", csrf)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read(), r.headers
    except urllib.error.HTTPError as e:
        return e.code, e.read(), e.headers


def call(gw, method, path, body=None, **kwargs):
    """(status, parsed JSON body or None, headers) of one request to the gateway `gw` (options as
    for http)."""
    status, raw, headers = http(gw.port, method, path, body, **kwargs)
    return status, (json.loads(raw) if raw else None), headers


def request(gw, method, path, body=None, token=None, timeout=20, **kwargs):
    """(status, parsed JSON body or None) of one request (cookie, csrf, raw_body as for call)."""
    status, body, _ = call(gw, method, path, body, token=token, timeout=timeout, **kwargs)
    return status, body


def login(gw, name, password):
    """The whole login answer (token, csrf_token, role, ...); asserts it succeeded and set the cookie."""
    status, body, headers = call(gw, "POST", "/api/v1/session", {"name": name, "password": password})
    assert status == 200, body
    assert headers["Set-Cookie"].startswith("ocppgw_session=" + body["token"])
    return body


def add_operator(gw, admin_token, name, role):
    """Creates operator `name` with `role` and returns a bearer token of theirs."""
    password = f"{name} password 123"
    status, body = request(gw, "POST", "/api/v1/operators", {"name": name, "role": role, "password": password},
                           token=admin_token)
    assert status == 201, body
    return login(gw, name, password)["token"]


def operator_token(gw):
    """A bearer token of a fresh operator `op`, on a gateway started with ADMIN_ENV."""
    return add_operator(gw, login(gw, "admin", ADMIN_PASSWORD)["token"], "op", "operator")


def csms_call(gw, token, charge_point_id, action, payload, timeout=20):
    """(status, body) of POST /api/v1/charge-points/{id}/calls/{action}."""
    path = f"/api/v1/charge-points/{urllib.parse.quote(charge_point_id, safe='')}/calls/{action}"
    return request(gw, "POST", path, payload, token=token, timeout=timeout)


def accounts(gw):
    """Bearer tokens of an admin, an operator and a viewer, on a gateway started with ADMIN_ENV."""
    admin = login(gw, "admin", ADMIN_PASSWORD)["token"]
    return {"admin": admin, "operator": add_operator(gw, admin, "op", "operator"),
            "viewer": add_operator(gw, admin, "vic", "viewer")}


def walk(gw, path, token, limit, key):
    """Every item of a paged list, page by page; asserts each page's size, the end marker, and
    that no item (by `key`) comes twice."""
    items, cursor = [], None
    sep = "&" if "?" in path else "?"
    for _ in range(1000):
        url = f"{path}{sep}limit={limit}" + (f"&cursor={cursor}" if cursor else "")
        status, body = request(gw, "GET", url, token=token)
        assert status == 200, (url, body)
        assert len(body["items"]) <= limit
        items.extend(body["items"])
        cursor = body["next_cursor"]
        if cursor is None:
            break
        assert len(body["items"]) == limit  # only the last page may be short
    keys = [i[key] for i in items]
    assert len(keys) == len(set(keys)), "an item came twice"
    return items
