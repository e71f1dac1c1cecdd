# tests/integration/python/csms_call_roundtrip_test.py: every CSMS->charge point action of both
# versions through POST /api/v1/charge-points/{id}/calls/{action} against the real binary,
# answered by the PyPI `ocpp` library's ChargePoint (v16 and v201), which validates each request
# it receives and each answer it sends against its own copy of the official schemas. The sample
# table (csms_call_samples.json, shared with the ocpp-rpc suite) is checked against the
# gateway's vendored schemas and against its list of actions first. Also: an answer that breaks
# the response schema is a 502 InvalidResponse and recorded as such; five concurrent calls to
# one charge point reach it one at a time, in the order they were asked.
import asyncio
import dataclasses
import json
import os
import re
import time

import jsonschema
import pytest
import websockets
from ocpp import v16, v201

from api_client import ADMIN_ENV, csms_call, operator_token
from scripted_charge_point import answer_with, recorded_calls, scripted_charge_point
from gateway_process import ROOT, GatewayProcess

SAMPLES = json.load(open(os.path.join(ROOT, "tests/integration/csms_call_samples.json"), encoding="utf-8"))


@dataclasses.dataclass(frozen=True)
class Version:
    subprotocol: str
    charge_point: type  # the library's ChargePoint class
    schema_dir: str
    request_suffix: str  # "ocpp16/schemas/Reset.json" vs "ocpp201/schemas/ResetRequest.json"
    protocol_source: str  # where the gateway lists its CSMS calls (kCsmsCalls)


VERSIONS = {
    "ocpp1.6": Version("ocpp1.6", v16.ChargePoint, "ocpp16/schemas", "", "ocpp16/protocol.cpp"),
    "ocpp2.0.1": Version("ocpp2.0.1", v201.ChargePoint, "ocpp201/schemas", "Request", "ocpp201/protocol.cpp"),
}


def official_schema(version, action, kind):
    suffix = version.request_suffix if kind == "request" else "Response"
    with open(os.path.join(ROOT, version.schema_dir, f"{action}{suffix}.json"), encoding="utf-8") as f:
        return json.load(f)


def gateway_csms_actions(version):
    with open(os.path.join(ROOT, version.protocol_source), encoding="utf-8") as f:
        block = re.search(r"kCsmsCalls\[\] = \{(.*?)\};", f.read(), re.S).group(1)
    return set(re.findall(r'"(\w+)"', block))


@pytest.mark.parametrize("name", VERSIONS)
def test_samples_cover_every_action_and_follow_the_official_schemas(name):
    version = VERSIONS[name]
    actions = [s["action"] for s in SAMPLES[name]]
    assert len(actions) == len(set(actions))
    assert set(actions) == gateway_csms_actions(version)
    for sample in SAMPLES[name]:
        for kind in ("request", "response"):
            schema = official_schema(version, sample["action"], kind)
            errors = [e.message for e in jsonschema.validators.validator_for(schema)(schema).iter_errors(sample[kind])]
            assert not errors, (sample["action"], kind, errors)


@pytest.fixture(scope="module")
def gateway(tmp_path_factory):
    gw = GatewayProcess(tmp_path_factory.mktemp("roundtrip"), env=ADMIN_ENV).start()
    gw.token = operator_token(gw)
    yield gw
    assert gw.stop() == 0


async def with_charge_point(gw, name, cp_id, answers, body, skip_validation=()):
    """Connects `cp_id` with version `name`, runs `await body(cp, api)`, then disconnects."""
    version = VERSIONS[name]
    api = lambda action, payload: asyncio.to_thread(csms_call, gw, gw.token, cp_id, action, payload)  # noqa: E731
    async with websockets.connect(f"{gw.url}/{cp_id}", subprotocols=[version.subprotocol]) as ws:
        cp = scripted_charge_point(version.charge_point, cp_id, ws, answers, skip_validation)
        listener = asyncio.create_task(cp.start())
        try:
            return await body(cp, api)
        finally:
            listener.cancel()


@pytest.mark.parametrize("name", VERSIONS)
def test_every_action_round_trips(gateway, name):
    cp_id = f"PY-RT-{name}"
    samples = SAMPLES[name]

    async def body(cp, api):
        for sample in samples:
            status, answer = await api(sample["action"], sample["request"])
            assert status == 200, (sample["action"], answer)
            assert answer == {"result": "CallResult", "payload": sample["response"]}, sample["action"]
            assert cp.received[-1][:2] == (sample["action"], sample["request"])
        assert len(cp.received) == len(samples)

    asyncio.run(with_charge_point(gateway, name, cp_id, {s["action"]: answer_with(s["response"]) for s in samples},
                                  body))
    # Each call is in the event log as a CsmsCall with its request, answer and who asked.
    calls = {e["ocpp_action"]: e["extra"] for e in recorded_calls(gateway, cp_id, len(samples))}
    assert set(calls) == {s["action"] for s in samples}
    for sample in samples:
        recorded = calls[sample["action"]]
        assert (recorded["outcome"], recorded["requested_by"]) == ("result", "op")
        assert (recorded["request"], recorded["response"]) == (sample["request"], sample["response"])


@pytest.mark.parametrize("name", VERSIONS)
def test_an_answer_breaking_the_response_schema_is_reported_not_passed_off(gateway, name):
    cp_id = f"PY-BAD-{name}"
    request = next(s["request"] for s in SAMPLES[name] if s["action"] == "Reset")

    async def body(cp, api):
        return await api("Reset", request)

    status, answer = asyncio.run(with_charge_point(
        gateway, name, cp_id, {"Reset": answer_with({"status": "Maybe"})}, body, skip_validation={"Reset"}))
    assert status == 502, answer
    assert answer["result"] == "InvalidResponse" and answer["payload"] == {"status": "Maybe"}, answer
    assert answer["violations"], answer
    recorded = [e["extra"] for e in recorded_calls(gateway, cp_id, 1)]
    assert len(recorded) == 1 and recorded[0]["response"] == {"status": "Maybe"}
    assert recorded[0]["response_violations"], recorded


@pytest.mark.parametrize("name", VERSIONS)
def test_concurrent_calls_reach_the_charge_point_one_at_a_time_in_order(gateway, name):
    cp_id = f"PY-ORDER-{name}"
    hold = 0.4  # each answer takes this long, so the later calls must wait in the queue
    answered = []

    def data_transfer(**kwargs):
        async def answer():
            await asyncio.sleep(hold)
            answered.append(time.monotonic())
            return dataclasses.make_dataclass("Answer", [("status", str), ("data", str)])("Accepted",
                                                                                          kwargs["message_id"])
        return answer()

    async def body(cp, api):
        async def ask(i):
            await asyncio.sleep(0.05 * i)  # asked in this order, all before the first is answered
            return await api("DataTransfer", {"vendorId": "com.example", "messageId": str(i)})
        results = await asyncio.gather(*(ask(i) for i in range(5)))
        return cp.received, results

    received, results = asyncio.run(with_charge_point(gateway, name, cp_id, {"DataTransfer": data_transfer}, body))
    assert [status for status, _ in results] == [200] * 5
    assert [answer["payload"]["data"] for _, answer in results] == [str(i) for i in range(5)]
    assert [payload["messageId"] for _, payload, _ in received] == [str(i) for i in range(5)]
    # Each CALL arrived only after the previous one's answer was sent.
    for i in range(1, 5):
        assert received[i][2] >= answered[i - 1], f"call {i} overlapped call {i - 1}"
