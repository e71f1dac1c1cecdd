# tests/integration/python/api_client.py: the REST API as the read and management tests call
# it: one request (status, parsed JSON), a login, operator accounts, and walking a paged list.
import json
import urllib.error
import urllib.request

ADMIN_PASSWORD = "integration admin password"


def request(gw, method, path, body=None, token=None, cookie=None, csrf=None, raw_body=None):
    """(status, parsed JSON body or None) of one request."""
    data = raw_body if raw_body is not None else (None if body is None else json.dumps(body).encode())
    req = urllib.request.Request(f"http://127.0.0.1:{gw.port}{path}", data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    if cookie:
        req.add_header("Cookie", f"ocppgw_session={cookie}")
    if csrf:
        req.add_header("X-CSRF-Token", csrf)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            status, raw = r.status, r.read()
    except urllib.error.HTTPError as e:
        status, raw = e.code, e.read()
    return status, (json.loads(raw) if raw else None)


def login(gw, name, password):
    """The login answer: token, csrf_token, role."""
    status, body = request(gw, "POST", "/api/v1/session", {"name": name, "password": password})
    assert status == 200, body
    return body


def accounts(gw):
    """Bearer tokens of an admin, an operator and a viewer."""
    admin = login(gw, "admin", ADMIN_PASSWORD)["token"]
    out = {"admin": admin}
    for name, role in [("op", "operator"), ("vic", "viewer")]:
        status, body = request(gw, "POST", "/api/v1/operators",
                               {"name": name, "role": role, "password": f"{name} password 123"},
                               token=admin)
        assert status == 201, body
        out[role] = login(gw, name, f"{name} password 123")["token"]
    return out


def walk(gw, path, token, limit, key):
    """Every item of a paged list, page by page; asserts each page's size and the end marker."""
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
