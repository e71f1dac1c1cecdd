#!/usr/bin/env python3
"""scripts/check-deps.py: the folders' dependency order, checked over every #include "..." line.

Each component may include headers of the components listed as its dependencies (and its
own), nothing else, so the arrows in docs/architecture.md point one way. The canonical event
type (analytics/event.hpp) is a component of its own: the protocol mappers, storage and Kafka
use it without depending on the analytics pipeline. Prints one line per violation and ends with
"N passed, N failed" (one check per source file); exits 1 on any violation.
"""
import pathlib
import re
import sys

# component -> components it may include (besides itself). Lower layers first.
ALLOWED = {
    "util": set(),
    "event": {"util"},
    "storage": {"util"},
    "delta": {"util"},
    "rpc": {"util", "event"},
    "ocpp16": {"util", "event", "rpc"},
    "ocpp201": {"util", "event", "rpc"},
    "analytics": {"util", "event", "storage", "delta"},
    "kafka": {"util", "event", "storage", "analytics"},
    "csms": {"util", "event", "storage", "rpc"},
    "web": {"util"},
    "gateway": {"util", "event", "storage", "delta", "rpc", "ocpp16", "ocpp201", "analytics",
                "kafka", "csms", "web"},
    "sim": {"util", "event", "storage"},
    # The fuzz targets drive the parsers of untrusted input directly, each with what it needs.
    "fuzz": {"util", "event", "rpc", "ocpp16", "ocpp201", "web", "gateway"},
}
SOURCE_DIRS = sorted(ALLOWED.keys() - {"event"})
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def component(path: str) -> str | None:
    if path in ("analytics/event.hpp", "analytics/event.cpp"):
        return "event"
    top = path.split("/", 1)[0]
    return top if top in ALLOWED else None


def main() -> int:
    root = pathlib.Path(__file__).resolve().parent.parent
    passed = failed = 0
    for top in SOURCE_DIRS:
        for f in sorted((root / top).rglob("*")):
            if f.suffix not in (".cpp", ".hpp", ".h"):
                continue
            rel = f.relative_to(root).as_posix()
            owner = component(rel)
            bad = []
            for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = component(m.group(1))
                if target is None or target == owner or target in ALLOWED[owner]:
                    continue
                bad.append(f"{rel}:{n}: {owner} must not include {m.group(1)} ({target})")
            if bad:
                failed += 1
                print("\n".join(bad))
            else:
                passed += 1
    print(f"dependency order: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
