# tests/integration/attack/conftest.py: one line per case instead of pytest's dots:
#   PASS test_urls.py::test_id_tricks[nul] 400 [0.1 s]
# (PASS, FAIL, XFAIL, XPASS, SKIP), with what the case measured (the `note` fixture) after the
# name. pytest's own summary ("N passed, M failed") still ends the output for run.sh to count.
import time

import pytest

_started = {}
_config = {}


def pytest_configure(config):
    _config["tr"] = config.pluginmanager.get_plugin("terminalreporter")


@pytest.fixture
def note(request):
    """note("...") adds to the case's line what it observed (statuses, latencies)."""
    def add(text):
        request.node.user_properties.append(("note", str(text)))
    return add


def pytest_runtest_logstart(nodeid, location):
    _started[nodeid] = time.monotonic()


def pytest_report_teststatus(report, config):
    # Silence the progress dots; the line below replaces them.
    if hasattr(report, "wasxfail"):
        return None  # pytest's own xfail accounting
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        return report.outcome, "", report.outcome.upper()
    return None


def pytest_runtest_logreport(report):
    failed_fixture = report.when in ("setup", "teardown") and report.failed
    if report.when != "call" and not failed_fixture and not (report.when == "setup" and report.skipped):
        return
    if hasattr(report, "wasxfail"):
        word = "XFAIL" if report.skipped else "XPASS"
    elif report.skipped:
        word = "SKIP"
    elif report.passed:
        word = "PASS"
    else:
        word = "FAIL" if report.when == "call" else f"ERROR({report.when})"
    notes = "; ".join(v for k, v in report.user_properties if k == "note")
    if word in ("FAIL", "ERROR(setup)", "ERROR(teardown)"):
        msg = str(report.longrepr).strip().splitlines()
        last = next((line for line in reversed(msg) if line.strip().startswith("E ")), msg[-1] if msg else "")
        notes = (notes + "; " if notes else "") + last.strip()[:300]
    if hasattr(report, "wasxfail") and report.wasxfail:
        notes = (notes + "; " if notes else "") + f"xfail: {report.wasxfail}"
    name = report.nodeid.split("/")[-1]
    secs = time.monotonic() - _started.get(report.nodeid, time.monotonic())
    line = f"{word} {name}{': ' + notes if notes else ''} [{secs:.1f} s]"
    tr = _config.get("tr")
    if tr:
        tr.ensure_newline()
        tr.write_line(line)
    else:
        print(line, flush=True)
