"""tests/integration/checklist.py: the [PASS]/[FAIL] tally shared by the standalone OCPP 2.0.1
scripts: check() records one named assertion, run() runs the script's main coroutine, counts a
crash as a failure, prints "N passed, M failed" and exits non-zero on any failure."""
import asyncio
import datetime as dt
import sys

results = []


def check(name, ok, detail=""):
    results.append(bool(ok))
    print(("[PASS] " if ok else "[FAIL] ") + name + ("" if ok else f": {detail}"), flush=True)


def iso(t):
    """RFC 3339 UTC with milliseconds, as charge points send it."""
    return t.astimezone(dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def run(main):
    try:
        asyncio.run(main())
    except Exception as e:  # noqa: BLE001 - report, count, and fail
        check("test run completed", False, repr(e))
    failed = results.count(False)
    print(f"{len(results) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
