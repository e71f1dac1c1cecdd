# tests/integration/scripted_charge_point.py: a PyPI `ocpp` ChargePoint (either version) that
# answers CSMS calls from a script (action -> handler) and records every CALL it receives, for
# the suites that drive the gateway's CSMS call API; and the wait for the calls' CsmsCall events.
import dataclasses
import time


def recorded_calls(gw, cp_id, count):
    """The CsmsCall events of `cp_id` once there are `count` of them: the API answers before the
    event's group commit, so the last ones may land a moment later."""
    deadline = time.monotonic() + 5
    while True:
        calls = [e for e in gw.events(cp_id) if e["event_type"] == "CsmsCall"]
        if len(calls) >= count or time.monotonic() > deadline:
            return calls
        time.sleep(0.05)


def answer_with(payload):
    """A route-map handler answering `payload` as it is (the library would turn snake_case
    field names into camelCase; these already are)."""
    answer_type = dataclasses.make_dataclass("Answer", [(key, object) for key in payload])

    def handler(**_):
        return answer_type(**payload)

    return handler


def scripted_charge_point(charge_point_class, cp_id, ws, answers, skip_validation=()):
    """An instance of `charge_point_class` (ocpp.v16 or ocpp.v201 ChargePoint) answering each
    action in `answers` (action -> handler taking the snake_case fields) and recording every
    CALL it receives in `.received` as (action, payload as received, monotonic time)."""

    class Scripted(charge_point_class):
        def __init__(self):
            super().__init__(cp_id, ws)
            self.received = []
            for action, handler in answers.items():
                self.route_map[action] = {"_on_action": handler,
                                          "_skip_schema_validation": action in skip_validation}

        async def _handle_call(self, msg):
            self.received.append((msg.action, msg.payload, time.monotonic()))
            return await super()._handle_call(msg)

    return Scripted()
