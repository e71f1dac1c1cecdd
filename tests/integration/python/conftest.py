# tests/integration/python/conftest.py: a fixture that runs the real `ocppgw` binary (env
# OCPPGW_BIN) on a free loopback port with a temp data dir and waits for GET /health.
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from gateway_process import GatewayProcess  # noqa: E402


@pytest.fixture
def gateway(tmp_path):
    gw = GatewayProcess(tmp_path).start()
    yield gw
    assert gw.stop() == 0
