# tests/integration/python/openapi_test.py: the OpenAPI document (web/openapi.json) is a valid
# OpenAPI 3 document (openapi-spec-validator), the binary serves exactly that file to a logged-in
# viewer, and schemathesis, run against the real binary with an admin token, finds no 5xx and no
# response that the document does not describe (status, content type, headers, body schema).
# tests/unit/gateway/openapi_test.cpp checks the other direction: every served route is listed.
#
# schemathesis is bounded (SCHEMATHESIS_MAX_EXAMPLES per operation, default 20, fixed seed) so
# the suite stays within the CI budget; raise it locally for a deeper run.
import json
import os
import subprocess
import sys

from openapi_spec_validator import validate
from openapi_spec_validator.readers import read_from_filename

from api_client import ADMIN_ENV, ADMIN_PASSWORD, call, login
from gateway_process import ROOT, GatewayProcess

DOCUMENT = os.path.join(ROOT, "web", "openapi.json")
# Logging out would end the token the rest of the run uses; the live stream never ends (its
# contract is checked by stream_test.py).
EXCLUDED_OPERATIONS = ["logout", "stream"]
CHECKS = ["not_a_server_error", "status_code_conformance", "content_type_conformance",
          "response_schema_conformance", "response_headers_conformance"]


def admin_token(gw):
    return login(gw, "admin", ADMIN_PASSWORD)["token"]


def test_document_is_valid_openapi_3():
    spec, _ = read_from_filename(DOCUMENT)
    validate(spec)  # raises on any violation
    assert spec["openapi"].startswith("3.")
    assert len(spec["paths"]) >= 7


def test_binary_serves_the_repository_document_to_logged_in_users(tmp_path):
    gw = GatewayProcess(tmp_path, env=ADMIN_ENV).start()
    try:
        status, body, _ = call(gw, "GET", "/api/v1/openapi.json")
        assert status == 401, body
        status, body, headers = call(gw, "GET", "/api/v1/openapi.json", token=admin_token(gw))
        assert status == 200
        assert headers["Content-Type"] == "application/json"
        with open(DOCUMENT, encoding="utf-8") as f:
            assert body == json.load(f)
    finally:
        assert gw.stop() == 0


def test_schemathesis_finds_no_5xx_and_no_undocumented_response(tmp_path):
    (tmp_path / "gw").mkdir()
    gw = GatewayProcess(tmp_path / "gw", env=ADMIN_ENV).start()
    try:
        token = admin_token(gw)
        args = [os.path.join(os.path.dirname(sys.executable), "schemathesis"), "run", DOCUMENT,
                "--url", f"http://127.0.0.1:{gw.port}", "-H", f"Authorization: Bearer {token}",
                "--max-examples", os.environ.get("SCHEMATHESIS_MAX_EXAMPLES", "20"), "--seed", "1",
                "--checks", ",".join(CHECKS), "--no-color", "--report", "junit",
                "--report-dir", str(tmp_path / "report")]
        for operation in EXCLUDED_OPERATIONS:
            args += ["--exclude-operation-id", operation]
        run = subprocess.run(args, capture_output=True, text=True, timeout=600, cwd=tmp_path,
                             env={**os.environ, "SCHEMATHESIS_HOOKS": ""})
        print(run.stdout[-6000:])
        assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
        assert "Tested:" in run.stdout
        # The gateway survived the fuzzing and still serves.
        status, _, _ = call(gw, "GET", "/health")
        assert status == 200
    finally:
        assert gw.stop() == 0
