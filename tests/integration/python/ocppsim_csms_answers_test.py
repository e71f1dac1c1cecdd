# tests/integration/python/ocppsim_csms_answers_test.py: `ocppsim` answering the gateway's CSMS
# calls, against the real binary: every action of csms_call_samples.json for a 1.6 and a 2.0.1
# simulated charge point gets a CALLRESULT that passes the gateway's check of the response
# schema (a sloppy answer would be a 502 InvalidResponse), after the configured delay; and the
# other outcomes: --csms-answer error (a CALLERROR) and silent (504 at csms_call_timeout).
import json
import os
import subprocess
import time

import pytest

from api_client import ADMIN_ENV, csms_call, operator_token
from gateway_process import ROOT, GatewayProcess

SIM = os.environ.get("OCPPSIM_BIN", os.path.join(ROOT, "build/sim/ocppsim"))
SAMPLES = json.load(open(os.path.join(ROOT, "tests/integration/csms_call_samples.json"), encoding="utf-8"))
DELAY_MS = 150


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    gw = GatewayProcess(tmp_path_factory.mktemp("simcalls"), args=["--csms-call-timeout", "1"], env=ADMIN_ENV).start()
    token = operator_token(gw)
    # One simulated charge point per case: (id, fraction of 2.0.1, ocppsim answer flags).
    cases = [("SIMA-16", 0, ["--csms-answer", "result"]),
             ("SIMA-201", 1, ["--csms-answer", "result", "--csms-answer-delay", str(DELAY_MS)]),
             ("SIMA-ERR", 0, ["--csms-answer", "error"]),
             ("SIMA-SILENT", 1, ["--csms-answer", "silent"])]
    sims = [subprocess.Popen([SIM, "--url", gw.url, "-n", "1", "--id-pattern", cp_id, "--fraction-201", str(f),
                              "--sessions-per-hour", "0", "--heartbeat", "0", "--duration", "60", "--drain", "1",
                              *flags], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for cp_id, f, flags in cases]
    try:
        deadline = time.monotonic() + 15
        for cp_id, _, _ in cases:  # connected (and booted) once a call is no longer a 409
            while csms_call(gw, token, cp_id, "ClearCache", {})[0] == 409:
                assert time.monotonic() < deadline, f"{cp_id} never connected"
                time.sleep(0.1)
        yield gw, token
    finally:
        for sim in sims:
            sim.terminate()
        for sim in sims:
            sim.wait(timeout=20)
        assert gw.stop() == 0


@pytest.mark.parametrize("cp_id,version", [("SIMA-16", "ocpp1.6"), ("SIMA-201", "ocpp2.0.1")])
def test_ocppsim_answers_every_action_with_a_schema_valid_result(fleet, cp_id, version):
    gw, token = fleet
    for sample in SAMPLES[version]:
        started = time.monotonic()
        status, body = csms_call(gw, token, cp_id, sample["action"], sample["request"])
        assert status == 200 and body["result"] == "CallResult", (sample["action"], status, body)
        if cp_id == "SIMA-201":
            assert time.monotonic() - started >= DELAY_MS / 1000, sample["action"]


def test_ocppsim_error_and_silent_outcomes(fleet):
    gw, token = fleet
    status, body = csms_call(gw, token, "SIMA-ERR", "Reset", {"type": "Soft"})
    assert (status, body["result"], body["code"]) == (200, "CallError", "GenericError"), body
    started = time.monotonic()
    status, body = csms_call(gw, token, "SIMA-SILENT", "Reset", {"type": "OnIdle"})
    assert (status, body["error"]) == (504, "Timeout"), body
    assert 0.9 <= time.monotonic() - started < 3
