"""Measure the lab in headless Chromium on localhost, against the runtime floor.

The floor is a page that only boots the bundled Pyodide and loads NumPy: what
no lab on this runtime can beat. Every cold load uses a fresh browser context
(empty HTTP cache); lab and floor loads alternate so they share conditions,
and both are served by the same server (precompressed, cached).

Figures (medians unless said otherwise):
- first tables painted after navigation, cold;
- lab.ready cold, and its ratio to the floor measured in the same run;
- lab.ready warm (a revisit in the same context: HTTP cache, and the NumPy
  bytecode the first visit kept in Cache Storage) / cold;
- bytes transferred on a cold load (Resource Timing transferSize);
- the longest main-thread task during boot (PerformanceObserver, longtask);
- lab.set round trips: 200 mask toggles, then a row per panel's controls.

Prints a table with each target and the ratio to it, and writes
.bench/latest.json. Usage: python scripts/bench.py [--runs 5] [--toggles 200]
This is a measurement, not a test: it asserts nothing.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import platform
import statistics
import subprocess
import threading
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from chromium import launch_options
from serve import LabHandler, make_server

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "static"
FLOOR_PATH = "/__floor.html"

# Collects long tasks from the very start of the page.
LONG_TASKS = """
window.__longTasks = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) window.__longTasks.push(entry.duration);
}).observe({type: 'longtask', buffered: true});
"""

BYTES = """() => performance.getEntriesByType('navigation')
  .concat(performance.getEntriesByType('resource'))
  .reduce((sum, entry) => sum + entry.transferSize, 0)"""

# (row label, page, list of partial states cycled through)
PANEL_ROWS = [
    ("atención · máscara (tablas)", "", [{"mask": "bidirectional"}, {"mask": "causal"}]),
    ("atención · clave (cuenta de una celda)", "", [{"key": k} for k in range(4)]),
    ("atención · cabeza, incluida «todas»", "",
     [{"head": h} for h in ("lugar", "finanzas", "anterior", "all")]),
    ("atención · RoPE θ", "", [{"theta": round(0.1 * i, 2)} for i in range(1, 31)]),
    ("atención · frase (entrenamiento)", "", [{"sentence": "credito"}, {"sentence": "parque"}]),
    ("atención · paso (caché KV)", "", [{"step": s} for s in (1, 2, 3, 4)]),
    ("bloque · orden", "bloque.html", [{"order": [0, 1, 2, 3, 4]}, {"order": [0, 4, 2, 3, 1]}]),
    ("bloque · codificación posicional", "bloque.html",
     [{"pe_d": d, "pe_positions": p} for d, p in ((8, 20), (16, 50), (64, 128))]),
    ("bloque · profundidad (residual, LayerNorm)", "bloque.html",
     [{"depth": n} for n in (1, 12, 32, 64)]),
    ("bloque · LayerNorm γ", "bloque.html", [{"gamma": round(0.1 * i, 1)} for i in range(1, 21)]),
    ("bloque · tamaños del bloque", "bloque.html",
     [{"d_model": 768, "heads": 12, "d_ff": 3072}, {"d_model": 512, "heads": 8, "d_ff": 2048}]),
]

TARGETS = {
    "first_paint_ms": ("first tables painted, cold", 300, "ms"),
    "ready_over_floor": ("lab.ready / runtime floor, cold", 1.15, ""),
    "warm_over_cold": ("lab.ready warm / cold", 0.6, ""),
    "set_ms_p95": ("lab.set round trip p95 (200 toggles)", 16, "ms"),
    "bytes_mb": ("bytes transferred, cold load", 12, "MB"),
}


def floor_page(index_url):
    """Boot the same runtime and make NumPy usable; nothing else.

    "Usable" includes `import numpy` (about 0,37 s here): Pyodide 0.17's
    loadPackage only unpacks the files, and any NumPy page must import it.
    """
    return (
        "<!doctype html><meta charset=utf-8><title>floor</title>"
        "<script src='%spyodide.js'></script><script>"
        "loadPyodide({indexURL: '%s'})"
        ".then((py) => py.loadPackage(['numpy']).then(() => py.runPython('import numpy')))"
        ".then(() => performance.mark('floor:ready'));"
        "</script>" % (index_url, index_url)
    ).encode()


class BenchHandler(LabHandler):
    floor = b""

    def send_head(self):
        if self.path != FLOOR_PATH:
            return super().send_head()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(self.floor)))
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        return io.BytesIO(self.floor)


def mark_time(page, name, timeout_ms=90000):
    page.wait_for_function(
        "(n) => performance.getEntriesByName(n).length > 0", arg=name, timeout=timeout_ms)
    return page.evaluate("(n) => performance.getEntriesByName(n)[0].startTime", name)


def round_trips(page, partials, n):
    """Time n lab.set calls cycling through partials, in the page."""
    return page.evaluate(
        """async ([partials, n]) => {
            const times = [];
            for (let i = 0; i < n; i++) {
                const t = performance.now();
                await window.lab.set(partials[i % partials.length]);
                times.push(performance.now() - t);
            }
            return times;
        }""",
        [partials, n],
    )


def p95(values):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


def chromium_version(options):
    path = options.get("executable_path")
    if not path:
        return "Playwright's Chromium"
    out = subprocess.run([path, "--version"], capture_output=True, text=True).stdout
    return out.strip() or path


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--toggles", type=int, default=200)
    parser.add_argument("--panel-toggles", type=int, default=100)
    args = parser.parse_args()

    manifest = json.loads((STATIC / "manifest.json").read_text())
    BenchHandler.floor = floor_page(manifest["runtimes"]["bundled"]["indexURL"])
    server = make_server(STATIC, handler_class=BenchHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = "http://127.0.0.1:%d/" % server.server_address[1]
    options = launch_options()

    samples = {k: [] for k in ("floor", "floor_warm", "first_paint", "ready", "warm", "bytes",
                               "floor_bytes", "long_task", "block_ready")}
    sets, panels = [], {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(**options)
        for run in range(args.runs):
            context = browser.new_context()
            page = context.new_page()
            page.add_init_script(LONG_TASKS)
            page.goto(base)
            samples["ready"].append(mark_time(page, "lab:ready"))
            samples["first_paint"].append(mark_time(page, "lab:first-paint"))
            samples["bytes"].append(page.evaluate(BYTES))
            samples["long_task"].append(max(page.evaluate("window.__longTasks") or [0]))
            # Warm: a revisit in the same context, with the HTTP cache and the
            # NumPy bytecode kept after the first visit (saved in idle time).
            mark_time(page, "lab:bytecode-saved", timeout_ms=30000)
            page.goto(base)
            samples["warm"].append(mark_time(page, "lab:ready"))
            if run == 0:
                sets = round_trips(page, PANEL_ROWS[0][2], args.toggles)
            context.close()

            context = browser.new_context()
            page = context.new_page()
            page.goto(base + FLOOR_PATH.lstrip("/"))
            samples["floor"].append(mark_time(page, "floor:ready"))
            samples["floor_bytes"].append(page.evaluate(BYTES))
            page.goto(base + FLOOR_PATH.lstrip("/"))
            samples["floor_warm"].append(mark_time(page, "floor:ready"))
            context.close()

            context = browser.new_context()
            page = context.new_page()
            page.goto(base + "bloque.html")
            samples["block_ready"].append(mark_time(page, "lab:ready"))
            context.close()

        for label, page_name, partials in PANEL_ROWS:
            context = browser.new_context()
            page = context.new_page()
            page.goto(base + page_name)
            page.evaluate("window.lab.ready")
            round_trips(page, partials, len(partials))  # warm-up: first sizes, caches
            panels[label] = round_trips(page, partials, args.panel_toggles)
            context.close()
        browser.close()
    server.shutdown()

    med = {k: statistics.median(v) for k, v in samples.items()}
    figures = {
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "machine": "%s, %d cores, %s" % (platform.platform(terse=True), os.cpu_count(),
                                         chromium_version(options)),
        "runs": args.runs,
        "floor_ms": med["floor"],
        "first_paint_ms": med["first_paint"],
        "ready_ms": med["ready"],
        "ready_over_floor": med["ready"] / med["floor"],
        "warm_ms": med["warm"],
        "warm_over_cold": med["warm"] / med["ready"],
        "floor_warm_ms": med["floor_warm"],
        "floor_warm_over_cold": med["floor_warm"] / med["floor"],
        "block_ready_ms": med["block_ready"],
        "bytes_mb": med["bytes"] / 1e6,
        "floor_bytes_mb": med["floor_bytes"] / 1e6,
        "longest_boot_task_ms": med["long_task"],
        "set_ms_median": statistics.median(sets),
        "set_ms_p95": p95(sets),
        "panels": {label: {"median_ms": statistics.median(t), "p95_ms": p95(t), "n": len(t)}
                   for label, t in panels.items()},
        "samples": samples,
    }

    print("Attention Lab benchmark · %s · %s" % (figures["date"], figures["machine"]))
    print("median of %d cold loads (fresh browser context each)\n" % args.runs)
    print("| figure | value | target | value / target |")
    print("| --- | --- | --- | --- |")
    print("| runtime floor: Pyodide boot + NumPy loaded and imported, cold | %.0f ms | | |"
          % figures["floor_ms"])
    print("| lab.ready, cold | %.0f ms | | |" % figures["ready_ms"])
    for key, (name, target, unit) in TARGETS.items():
        value = figures[key]
        shown = ("%.2f" % value) if unit in ("", "MB") else ("%.1f" % value)
        print("| %s | %s%s | ≤ %s%s | %.2f |" % (name, shown, " " + unit if unit else "",
                                                 target, " " + unit if unit else "", value / target))
    print("| lab.set round trip, median | %.2f ms | | |" % figures["set_ms_median"])
    print("| lab.ready warm | %.0f ms | | |" % figures["warm_ms"])
    print("| floor warm / cold (the same ratio for the bare runtime) | %.2f | | |"
          % figures["floor_warm_over_cold"])
    print("| floor page bytes, cold | %.2f MB | | |" % figures["floor_bytes_mb"])
    print("| longest main-thread task during boot | %.0f ms | (reported) | |"
          % figures["longest_boot_task_ms"])
    print("| bloque.html lab.ready, cold | %.0f ms | | |" % figures["block_ready_ms"])
    print("\n| lab.set round trip per panel (%d calls each) | median | p95 | p95 / 16 ms |"
          % args.panel_toggles)
    print("| --- | --- | --- | --- |")
    for label, row in figures["panels"].items():
        print("| %s | %.2f ms | %.2f ms | %.2f |" % (label, row["median_ms"], row["p95_ms"],
                                                     row["p95_ms"] / 16))
    out = ROOT / ".bench"
    out.mkdir(exist_ok=True)
    (out / "latest.json").write_text(json.dumps(figures, indent=2) + "\n")
    print("\nwritten: .bench/latest.json")


if __name__ == "__main__":
    main()
