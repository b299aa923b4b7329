"""Measure the lab in headless Chromium on localhost, against the runtime floor.

The floor is a page that only boots the bundled Pyodide and loads NumPy: what
no lab on this runtime can beat. Each cold load uses a fresh browser context
(empty HTTP cache); lab and floor loads alternate so they share conditions.

Prints a table and writes .bench/latest.json. Usage:
    python scripts/bench.py [--runs 5] [--toggles 200]
This is a measurement, not a test: it asserts nothing.
"""
from __future__ import annotations

import argparse
import json
import statistics
import threading
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from chromium import launch_options
from serve import LabHandler, make_server

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "static"
FLOOR_PATH = "/__floor.html"


def floor_page(index_url):
    """Boot the same runtime and load NumPy; nothing else."""
    return (
        "<!doctype html><meta charset=utf-8><title>floor</title>"
        "<script src='%spyodide.js'></script><script>"
        "loadPyodide({indexURL: '%s'})"
        ".then((py) => py.loadPackage(['numpy']))"
        ".then(() => performance.mark('floor:ready'));"
        "</script>" % (index_url, index_url)
    ).encode()


class BenchHandler(LabHandler):
    floor = b""

    def do_GET(self):
        if self.path != FLOOR_PATH:
            return super().do_GET()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(self.floor)))
        self.end_headers()
        self.wfile.write(self.floor)


def mark_time(page, name, timeout_ms=60000):
    page.wait_for_function(
        "(n) => performance.getEntriesByName(n).length > 0", arg=name, timeout=timeout_ms)
    return page.evaluate("(n) => performance.getEntriesByName(n)[0].startTime", name)


def cold_load(browser, url, mark):
    context = browser.new_context()
    page = context.new_page()
    page.goto(url)
    ms = mark_time(page, mark)
    return context, page, ms


def set_round_trips(page, toggles):
    return page.evaluate(
        """async (n) => {
            const times = [];
            for (let i = 0; i < n; i++) {
                const t = performance.now();
                await window.lab.set({mask: i % 2 ? 'causal' : 'bidirectional'});
                times.push(performance.now() - t);
            }
            return times;
        }""",
        toggles,
    )


def p95(values):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--toggles", type=int, default=200)
    args = parser.parse_args()

    manifest = json.loads((STATIC / "manifest.json").read_text())
    BenchHandler.floor = floor_page(manifest["runtime"]["indexURL"])
    server = make_server(STATIC, handler_class=BenchHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = "http://127.0.0.1:%d" % server.server_address[1]

    ready, floor, sets = [], [], []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(**launch_options())
        for run in range(args.runs):
            context, page, ms = cold_load(browser, base + "/", "lab:ready")
            ready.append(ms)
            if run == 0:
                sets = set_round_trips(page, args.toggles)
            context.close()
            context, _, ms = cold_load(browser, base + FLOOR_PATH, "floor:ready")
            floor.append(ms)
            context.close()
        browser.close()
    server.shutdown()

    figures = {
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "runs": args.runs,
        "toggles": args.toggles,
        "floor_ms_median": statistics.median(floor),
        "ready_ms_median": statistics.median(ready),
        "ready_over_floor": statistics.median(ready) / statistics.median(floor),
        "set_ms_median": statistics.median(sets),
        "set_ms_p95": p95(sets),
        "samples": {"floor_ms": floor, "ready_ms": ready},
    }
    rows = [
        ("runtime floor: Pyodide boot + NumPy, cold", "%.0f ms" % figures["floor_ms_median"]),
        ("lab.ready, cold", "%.0f ms" % figures["ready_ms_median"]),
        ("lab.ready / floor", "%.2f" % figures["ready_over_floor"]),
        ("lab.set round trip, median (%d toggles)" % args.toggles,
         "%.2f ms" % figures["set_ms_median"]),
        ("lab.set round trip, p95", "%.2f ms" % figures["set_ms_p95"]),
    ]
    print("| figure (median of %d cold loads) | value |" % args.runs)
    print("| --- | --- |")
    for name, value in rows:
        print("| %s | %s |" % (name, value))
    out = ROOT / ".bench"
    out.mkdir(exist_ok=True)
    (out / "latest.json").write_text(json.dumps(figures, indent=2) + "\n")
    print("\nwritten: .bench/latest.json")


if __name__ == "__main__":
    main()
