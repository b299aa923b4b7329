"""Measure the lab in headless Chromium on localhost, against the runtime floor.

The floor is a page that only boots Pyodide 0.17.1 as Pyodide ships it (its
own archives, untrimmed, brotli-compressed like the site) in a Web Worker, as
the lab does, and imports NumPy: what any page on this runtime pays. The lab
ships fewer bytes (only the files it opens), so it may beat it. Every
cold load uses a fresh browser context (empty HTTP cache); lab and floor loads
alternate so they share conditions, and both are served by the same server
(precompressed, cached).

Two profiles, measured in the same run:
- desktop: this machine as it is;
- phone: Chromium's 4× CPU throttling and DevTools' «Slow 4G» network
  (1,44 Mbit/s down, 562,5 ms latency), through the DevTools protocol, for the
  lab and for the floor alike.

Figures (medians): first tables painted, lab.ready, their ratios to the floor
of the same profile; warm / cold; bytes on a cold load; the longest
main-thread task during boot; lab.set round trips (200 toggles, then every
panel's controls), with where a round trip's time goes: Python (in the
worker), carrying and parsing the reply, drawing it; and per panel, one
change at a time, the time until the whole page shows it.

Prints tables with each target and the ratio to it, and writes
.bench/latest.json. Usage: python scripts/bench.py [--runs 5] [--phone-runs 3]
[--loads-only [--with-phone] | --panels-only [--desktop-only] [--rows todas,RoPE]]. Round
trips are timed once Python's own view is on screen (<body data-live="true">):
before that, changes use the build's prepared views.
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
from urllib.parse import quote

from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import sync_playwright

from chromium import launch_options
from serve import LabHandler, make_server
from site_headers import PAGE_CSP, WORKER_CSP

from lab_core.decoder_run import BATCH as BATCH_OF_MODEL

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "static"

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
# What each file of a cold load put on the wire, by path.
FILE_BYTES = """() => Object.fromEntries(performance.getEntriesByType('navigation')
  .concat(performance.getEntriesByType('resource'))
  .map((entry) => [new URL(entry.name).pathname, entry.transferSize]))"""

# DevTools' «Slow 4G» preset, and its 4× CPU throttling.
PHONE_NETWORK = {"offline": False, "latency": 562.5, "downloadThroughput": 180000,
                 "uploadThroughput": 84375}
PHONE_CPU = 4

# A reader's own sentence of 8 tokens, repeats included.
EIGHT_WORDS = "El;banco;del;parque;de;cr%C3%A9dito;El;banco"
# Typed sentences at the limit (12 words): words of every group, one the lab
# does not know in each («nadamos», «hoy»).
TWELVE_WORDS = ("el niño pidió un préstamo al banco junto al río y nadamos",
                "me senté en el banco de la plaza con mi perro hoy")

# (row label, page, the panel the reader looks at, partial states cycled through)
PANEL_ROWS = [
    ("atención · máscara (tablas)", "", "mascara", [{"mask": "bidirectional"}, {"mask": "causal"}]),
    ("atención · clave (cuenta de una celda)", "", "puntuacion", [{"key": k} for k in range(4)]),
    ("atención · cabeza, incluida «todas»", "", "cabezas",
     [{"head": h} for h in ("lugar", "finanzas", "anterior", "all")]),
    ("atención · anchura dₖ (√dₖ)", "", "puntuacion", [{"dk": w} for w in (2, 8, 32, 128, 512)]),
    ("atención · RoPE θ", "", "rope", [{"theta": round(0.1 * i, 2)} for i in range(1, 31)]),
    ("atención · frase (entrenamiento)", "", "entrenamiento",
     [{"sentence": "credito"}, {"sentence": "parque"}]),
    ("atención · paso (caché KV)", "", "cache", [{"step": s} for s in (1, 2, 3, 4)]),
    ("atención · tu frase de 8 palabras (consulta)", "?tokens=" + EIGHT_WORDS, "puntuacion",
     [{"query": q} for q in range(8)]),
    ("atención · frase escrita de 12 palabras (consulta)",
     "?tokens=" + quote(TWELVE_WORDS[0].replace(" ", ";"), safe=";"), "puntuacion",
     [{"query": q} for q in range(12)]),
    ("atención · escribir una frase de 12 palabras", "", "propia",
     [{"tokens": text} for text in TWELVE_WORDS]),
    ("bloque · orden", "bloque.html", "orden", [{"order": [0, 1, 2, 3, 4]}, {"order": [0, 4, 2, 3, 1]}]),
    ("bloque · codificación posicional", "bloque.html", "posicion",
     [{"pe_d": d, "pe_positions": p} for d, p in ((8, 20), (16, 50), (64, 128))]),
    ("bloque · profundidad (residual, LayerNorm)", "bloque.html", "residual",
     [{"depth": n} for n in (1, 12, 32, 64)]),
    ("bloque · LayerNorm γ", "bloque.html", "layernorm",
     [{"gamma": round(0.1 * i, 1)} for i in range(1, 21)]),
    ("bloque · tamaños del bloque", "bloque.html", "bloque",
     [{"d_model": 768, "heads": 12, "d_ff": 3072}, {"d_model": 512, "heads": 8, "d_ff": 2048}]),
]

FLOOR_PAGE = b"""<!doctype html><meta charset=utf-8><title>floor</title>
<script src="__floor.js"></script>"""
FLOOR_SCRIPT = """
const worker = new Worker("__floor-worker.js");
worker.onmessage = () => performance.mark("floor:ready");
worker.postMessage(new URL("%s", location.href).href);
"""
# Boot the same runtime in a worker and make NumPy usable; nothing else.
# "Usable" includes `import numpy`: Pyodide 0.17's loadPackage only unpacks
# the files, and any NumPy page must import it.
FLOOR_WORKER = """
self.onmessage = async (event) => {
  importScripts(event.data + "pyodide.js");
  const py = await loadPyodide({ indexURL: event.data });
  await py.loadPackage(["numpy"]);
  py.runPython("import numpy");
  postMessage("ready");
};
"""


# A teacher's course page with two panels of the lab, loading at once.
COURSE_PAGE = b"""<!doctype html><meta charset=utf-8><title>curso</title>
<iframe title="uno" src="index.html?embed=1&amp;panel=puntuacion"></iframe>
<iframe title="dos" src="index.html?embed=1&amp;panel=cabezas&amp;mask=bidirectional"></iframe>"""
COURSE_CSP = PAGE_CSP.replace("frame-src 'none'", "frame-src 'self'")


# The floor boots Pyodide as Pyodide ships it (the same 7 files the build
# picks, untrimmed, with their LZ4 archives), brotli-compressed like the
# site's: what any page with Pyodide 0.17 and NumPy downloads and starts.
FLOOR_PREFIX = "/__pyodide/"
FLOOR_FILES = ROOT / ".bench" / "floor-runtime"
FLOOR_TYPES = {".js": "text/javascript", ".json": "application/json",
               ".wasm": "application/wasm", ".data": "application/octet-stream"}


def prepare_floor_runtime():
    """Pyodide's own files and their .br copies in .bench/floor-runtime/ (kept)."""
    import brotli

    from build import BUNDLED, CORE_FILES

    FLOOR_FILES.mkdir(parents=True, exist_ok=True)
    for name in CORE_FILES + ("numpy.js", "numpy.data"):
        source, target = BUNDLED / "dist" / name, FLOOR_FILES / name
        data = source.read_bytes()
        if not target.is_file() or target.read_bytes() != data:
            target.write_bytes(data)
            (FLOOR_FILES / (name + ".br")).write_bytes(brotli.compress(data, quality=11, lgwin=24))


class BenchHandler(LabHandler):
    """The lab's server, plus the files of the floor and course pages; it
    counts the requests for each path (the embeds' row)."""
    extra = {}
    served = []

    def send_head(self):
        path = self.path.split("?", 1)[0]
        self.served.append(path)
        if path.startswith(FLOOR_PREFIX):
            return self.floor_file(path[len(FLOOR_PREFIX):])
        if path not in self.extra:
            return super().send_head()
        body, kind, policy = self.extra[path]
        return self.send_bytes(body, kind, policy)

    def floor_file(self, name):
        path = FLOOR_FILES / name
        if "/" in name or not path.is_file():
            self.send_error(404)
            return None
        brotli_ok = "br" in self.headers.get("Accept-Encoding", "")
        body = (FLOOR_FILES / (name + ".br")).read_bytes() if brotli_ok else path.read_bytes()
        return self.send_bytes(body, FLOOR_TYPES[path.suffix], WORKER_CSP,
                               encoding="br" if brotli_ok else None,
                               cache="public, max-age=31536000, immutable")

    def send_bytes(self, body, kind, policy, encoding=None, cache="no-cache"):
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        if encoding:
            self.send_header("Content-Encoding", encoding)
        self.send_header("Cache-Control", cache)
        self.send_header("Content-Security-Policy", policy)
        self.end_headers()
        return io.BytesIO(body)


# The page's marks reach the driver as console messages, from an observer
# the init script starts: waiting with page.wait_for_function would inject
# Playwright's own script into the page and poll it every frame while it
# loads, which here put about 40 ms (15 %) of Playwright's work into the
# first paint measured. The driver does not touch a loading page.
MARKS = """
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) console.debug('bench-mark', entry.name, entry.startTime);
}).observe({type: 'mark', buffered: true});
"""


class Marks:
    """The marks a page made (name -> ms); clear() before each navigation."""

    def __init__(self, page):
        self.page, self.seen = page, {}
        page.on("console", self.heard)

    def clear(self):
        self.seen.clear()

    def heard(self, message):
        words = message.text.split(" ")
        if message.type == "debug" and len(words) == 3 and words[0] == "bench-mark":
            self.seen.setdefault(words[1], float(words[2]))

    def time(self, name, timeout_ms=300000):
        deadline = time.monotonic() + timeout_ms / 1000
        while name not in self.seen:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no mark %s within %d ms" % (name, timeout_ms))
            try:
                self.page.wait_for_event("console", timeout=left * 1000)
            except PlaywrightTimeout:  # the loop says which mark
                pass
        return self.seen[name]


# Time n lab.set calls cycling through partials, in the page; and where the
# time of each went (the page's lab:python, lab:reply and lab:draw measures).
ROUND_TRIPS = """async ([partials, n]) => {
    const times = [];
    performance.clearMeasures();
    for (let i = 0; i < n; i++) {
        const t = performance.now();
        await window.lab.set(partials[i % partials.length]);
        times.push(performance.now() - t);
    }
    const parts = {};
    for (const name of ['lab:python', 'lab:reply', 'lab:draw']) {
        parts[name] = performance.getEntriesByName(name).map((e) => e.duration);
    }
    return { times, parts };
}"""


# One change at a time, each from a settled page, as a reader clicks: how
# long until the whole page shows it (<body data-busy> cleared). A change
# draws the panels near the screen with its frame (lab.set resolves then)
# and the others a moment later (web/js/offscreen.js); back to back, as in
# ROUND_TRIPS, those wait for the last change, so this is where they count.
WHOLE_PAGE = """async ([partials, n]) => {
    const idle = () => new Promise((resolve) => {
        if (!document.body.dataset.busy) return resolve();
        const watch = new MutationObserver(() => {
            if (!document.body.dataset.busy) { watch.disconnect(); resolve(); }
        });
        watch.observe(document.body, {attributes: true, attributeFilter: ['data-busy']});
    });
    const times = [];
    for (let i = 0; i < n; i++) {
        await idle();
        const t = performance.now();
        await window.lab.set(partials[i % partials.length]);
        await idle();
        times.push(performance.now() - t);
    }
    return times;
}"""


def p95(values):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


def chromium_version(options):
    path = options.get("executable_path")
    if not path:
        return "Playwright's Chromium"
    out = subprocess.run([path, "--version"], capture_output=True, text=True).stdout
    return out.strip() or path


class Profile:
    """Pages of one profile: a fresh context each, throttled when asked."""

    def __init__(self, browser, phone):
        self.browser, self.phone = browser, phone

    def page(self, context=None, marks=False):
        context = context or self.browser.new_context()
        page = context.new_page()
        page.add_init_script(LONG_TASKS)
        if marks:  # loads only: round trips make marks too, and a message costs
            page.add_init_script(MARKS)
            page.marks = Marks(page)
        if self.phone:
            cdp = context.new_cdp_session(page)
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": PHONE_CPU})
            cdp.send("Network.enable")
            cdp.send("Network.emulateNetworkConditions", PHONE_NETWORK)
        return page


# Where a cold boot's time goes: the page's marks (main.js) at the start of
# each step, and Python's time for the first view.
BOOT_STEPS = """() => {
  const at = (name) => (performance.getEntriesByName(name)[0] || {startTime: null}).startTime;
  const python = performance.getEntriesByName('lab:python')[0];
  return {files: at('lab:step:worker'), python: at('lab:step:python'), numpy: at('lab:step:numpy'),
          lab: at('lab:step:lab'), confirmed: at('lab:confirmed'),
          first_view_python: python ? python.duration : null};
}"""


def measure_loads(profile, base, runs, samples, with_warm):
    for _ in range(runs):
        page = profile.page(marks=True)
        page.goto(base)
        samples["ready"].append(page.marks.time("lab:ready"))
        page.marks.time("lab:confirmed")
        samples["boot"].append(page.evaluate(BOOT_STEPS))
        samples["first_paint"].append(page.marks.time("lab:first-paint"))
        samples["bytes"].append(page.evaluate(BYTES))
        if not samples["files"]:
            samples["files"].append(page.evaluate(FILE_BYTES))
        samples["long_task"].append(max(page.evaluate("window.__longTasks") or [0]))
        if with_warm:
            # A revisit: the HTTP cache is warm, and the service worker has
            # stored what the first visit used.
            page.wait_for_selector("body[data-offline='saved']", state="attached", timeout=300000)
            page.marks.clear()
            page.goto(base + "?mask=bidirectional")
            samples["warm"].append(page.marks.time("lab:ready"))
            page.wait_for_selector("body[data-offline='saved']", state="attached", timeout=300000)
            page.marks.clear()
            page.context.set_offline(True)
            page.goto(base + "?mask=bidirectional")
            samples["offline"].append(page.marks.time("lab:ready"))
        page.context.close()

        page = profile.page(marks=True)
        page.goto(base + "__floor.html")
        samples["floor"].append(page.marks.time("floor:ready"))
        if with_warm:
            page.marks.clear()
            page.goto(base + "__floor.html")
            samples["floor_warm"].append(page.marks.time("floor:ready"))
        page.context.close()

        page = profile.page(marks=True)
        page.goto(base + "bloque.html")
        samples["block_ready"].append(page.marks.time("lab:ready"))
        page.context.close()


# Python's own view on screen: from then on every change is a round trip to
# Python (until then, changes use the build's prepared views).
def settled(page):
    page.evaluate("window.lab.ready")
    page.wait_for_selector("body[data-live='true']", state="attached", timeout=300000)


def measure_panels(profile, base, n):
    rows = {}
    for label, page_name, section, partials in PANEL_ROWS:
        page = profile.page()
        page.goto(base + page_name)
        settled(page)
        # The reader looks at the panel their change shows: it is painted.
        page.evaluate("(id) => document.getElementById(id).scrollIntoView({block: 'start'})", section)
        page.evaluate(ROUND_TRIPS, [partials, len(partials)])  # warm-up: first sizes, caches
        result = page.evaluate(ROUND_TRIPS, [partials, n])
        whole = page.evaluate(WHOLE_PAGE, [partials, n])
        rows[label] = {"median_ms": statistics.median(result["times"]),
                       "p95_ms": p95(result["times"]), "n": n,
                       "whole_page_p95_ms": p95(whole),
                       "parts_ms": {k: statistics.median(v) if v else 0.0
                                    for k, v in result["parts"].items()}}
        page.context.close()
    return rows


def measure_embeds(profile, base, runs, samples):
    """A course page with two embedded panels, a fresh context each time:
    until both are ready, and how often each runtime file reached the server."""
    manifest = json.loads((STATIC / "manifest.json").read_text())
    runtime = manifest["runtimes"]["bundled"]
    paths = ["/" + runtime["indexURL"] + f["name"] for f in runtime["files"]]
    paths.append("/" + manifest["wheel"]["path"])
    for _ in range(runs):
        page = profile.page()
        BenchHandler.served.clear()
        start = time.monotonic()
        page.goto(base + "__course.html")
        for frame in page.frames[1:]:
            frame.evaluate("window.lab.ready")
        samples["embeds"].append((time.monotonic() - start) * 1000)
        samples["embeds_fetches"].append(max(BenchHandler.served.count(p) for p in paths))
        page.context.close()


# The capstone (modelo.html): how fast the worker trains, and whether the
# page still answers the reader meanwhile. A jump of STEPS from step 0 is
# STEPS Adam steps plus one view; one more step is one step plus a view: the
# difference is the training alone. «Entrenar» is the reader's rate, views
# included. While it trains, a keystroke in the beginning's field must reach
# the screen: the time from the key to the next frame, p95.
TRAIN_JUMP = 300
TRAIN_PRESS_TO = 300
KEY_TO_FRAME = """async (n) => {
  const field = document.getElementById('type-prompt');
  const times = [];
  for (let i = 0; i < n; i++) {
    await new Promise((r) => setTimeout(r, 20 + (i % 7) * 11));
    const start = performance.now();
    field.dispatchEvent(new KeyboardEvent('keydown', {key: 'a', bubbles: true}));
    field.value += 'a';
    field.dispatchEvent(new Event('input', {bubbles: true}));
    await new Promise((r) => requestAnimationFrame(() => r()));
    times.push(performance.now() - start);
  }
  return times;
}"""


def measure_training(profile, base):
    page = profile.page()
    page.goto(base + "modelo.html")
    settled(page)
    timed = "async (p) => { const t = performance.now(); await window.lab.set(p); return performance.now() - t; }"
    jump = page.evaluate(timed, {"steps": TRAIN_JUMP})
    one = page.evaluate(timed, {"steps": TRAIN_JUMP + 1})
    page.evaluate(timed, {"steps": 0})
    button = page.locator("#entrena button[data-action='play']")
    start = time.monotonic()
    button.click()
    keys = page.evaluate(KEY_TO_FRAME, 40)
    page.wait_for_function("(n) => window.lab.state.steps >= n", arg=TRAIN_PRESS_TO, timeout=600000)
    button.click()
    page.wait_for_function("() => !document.body.dataset.busy", timeout=600000)
    elapsed = time.monotonic() - start
    reached = page.evaluate("window.lab.state.steps")
    page.context.close()
    return {"worker_steps_per_s": (TRAIN_JUMP - 1) / max(1e-9, (jump - one) / 1000),
            "view_ms": one, "page_steps_per_s": reached / elapsed,
            "key_frame_p95_ms": p95(keys), "key_frame_median_ms": statistics.median(keys)}


# The phone's training rate. Chromium's CPU throttling slows the page's main
# thread only, never a worker's, and the model trains in the worker; so the
# bench also runs a browser whose every process is held, by a CPU cgroup, to
# a quarter of one core: the worker, the page and the browser share one core
# four times slower (stricter than a phone, whose threads have cores of
# their own). It needs a writable cgroup (root, cgroup v1's cpu controller or
# v2's cpu.max); elsewhere the row says it was not measured.
QUARTER = "attention-lab-bench"


def quarter_cpu_group():
    """A cgroup holding its processes to a quarter of one core: (the file
    that takes a pid, a function that removes the group), or (None, why not)."""
    period = 100000
    quota = "%d" % (period // 4)
    v1 = Path("/sys/fs/cgroup/cpu")
    v2 = Path("/sys/fs/cgroup")
    try:
        if (v1 / "cpu.cfs_quota_us").is_file():
            group = v1 / QUARTER
            group.mkdir(exist_ok=True)
            (group / "cpu.cfs_period_us").write_text(str(period))
            (group / "cpu.cfs_quota_us").write_text(quota)
        elif "cpu" in (v2 / "cgroup.controllers").read_text().split():
            group = v2 / QUARTER
            group.mkdir(exist_ok=True)
            (group / "cpu.max").write_text("%s %d" % (quota, period))
        else:
            return None, "no cgroup CPU controller here"
    except OSError as error:
        return None, "no writable CPU cgroup (%s)" % error.strerror
    return group / "cgroup.procs", lambda: group.rmdir()


def measure_training_quarter_cpu(playwright, base, options):
    """measure_training in a browser held to a quarter of the CPU (above),
    on the desktop's network; None and why when no cgroup can hold it."""
    procs, remove = quarter_cpu_group()
    if procs is None:
        return None, remove
    executable = options.get("executable_path") or playwright.chromium.executable_path
    wrapper = ROOT / ".bench" / "chromium-quarter-cpu.sh"
    wrapper.parent.mkdir(exist_ok=True)
    # Every process Chromium starts inherits the launcher's cgroup.
    wrapper.write_text('#!/bin/sh\necho $$ > "%s"\nexec "%s" "$@"\n' % (procs, executable))
    wrapper.chmod(0o755)
    browser = playwright.chromium.launch(**dict(options, executable_path=str(wrapper)))
    try:
        return measure_training(Profile(browser, False), base), None
    finally:
        browser.close()
        try:
            remove()
        except OSError:
            pass  # a process still leaving; the empty group goes next run


def print_quarter(fig, why):
    """The phone's training row that the worker really feels (above)."""
    if fig is None:
        print("\n## El modelo entero · a quarter of one core: not measured (%s)" % why)
        return
    print_training("a quarter of one core (every process of the browser, the worker too)",
                   dict(fig, target=10))


def print_training(name, fig):
    print("\n## El modelo entero · %s\n" % name)
    print("| figure | value | target | value / target |")
    print("| --- | --- | --- | --- |")
    print("| training in the worker (both masks, batch %d): %d steps minus 1, one view each "
          "| %.1f steps/s | ≥ %d | %.2f |" % (BATCH_OF_MODEL, TRAIN_JUMP, fig["worker_steps_per_s"],
                                            fig["target"], fig["worker_steps_per_s"] / fig["target"]))
    print("| one step and its view | %.0f ms | | |" % fig["view_ms"])
    print("| «Entrenar» to step %d, views included | %.1f steps/s | (reported) | |"
          % (TRAIN_PRESS_TO, fig["page_steps_per_s"]))
    print("| a keystroke to the next frame while training: median, p95 | %.1f ms, %.1f ms "
          "| ≤ 100 ms | %.2f |" % (fig["key_frame_median_ms"], fig["key_frame_p95_ms"],
                                   fig["key_frame_p95_ms"] / 100))


def summary(samples):
    med = {k: statistics.median(v) for k, v in samples.items() if v and k != "boot"}
    out = {
        "floor_ms": med["floor"], "ready_ms": med["ready"],
        "first_paint_ms": med["first_paint"],
        "first_paint_over_floor": med["first_paint"] / med["floor"],
        "ready_over_floor": med["ready"] / med["floor"],
        "block_ready_ms": med["block_ready"], "bytes_mb": med["bytes"] / 1e6,
        "longest_boot_task_ms": med["long_task"],
    }
    out["boot_ms"] = {step: statistics.median(b[step] for b in samples["boot"])
                      for step in samples["boot"][0]}
    if "warm" in med:
        out.update(warm_ms=med["warm"], warm_over_cold=med["warm"] / med["ready"],
                   floor_warm_over_cold=med["floor_warm"] / med["floor"],
                   offline_ms=med["offline"])
    if "embeds" in med:
        out.update(embeds_ms=med["embeds"], embeds_fetches=max(samples["embeds_fetches"]))
    out["files"] = samples["files"][0] if samples["files"] else {}
    return out


def print_files(fig):
    """Bytes on the wire per file of one cold load (the largest first)."""
    files = sorted(fig["files"].items(), key=lambda item: -item[1])
    print("\n| file, cold load | bytes transferred |")
    print("| --- | --- |")
    for path, size in files:
        if size >= 10000:
            print("| %s | %.2f MB |" % (path, size / 1e6))
    rest = sum(size for _, size in files if size < 10000)
    print("| %d other files | %.2f MB |" % (sum(1 for _, size in files if size < 10000), rest / 1e6))


def print_profile(name, fig, ready_target=1.00):
    print("\n### %s\n" % name)
    print("| figure | value | target | value / target |")
    print("| --- | --- | --- | --- |")
    print("| runtime floor: Pyodide (worker) + NumPy imported, cold | %.0f ms | | |"
          % fig["floor_ms"])
    print("| first tables painted, cold | %.0f ms | | |" % fig["first_paint_ms"])
    print("| first paint / floor | %.3f | ≤ 0,1 | %.2f |"
          % (fig["first_paint_over_floor"], fig["first_paint_over_floor"] / 0.1))
    print("| lab.ready, cold | %.0f ms | | |" % fig["ready_ms"])
    print("| lab.ready / floor | %.2f | ≤ %.2f | %.2f |"
          % (fig["ready_over_floor"], ready_target, fig["ready_over_floor"] / ready_target))
    print("| Python's own view on screen (confirms the prepared one), cold | %.0f ms | | "
          "(%.2f × floor) |" % (fig["boot_ms"]["confirmed"], fig["boot_ms"]["confirmed"] / fig["floor_ms"]))
    if "warm_ms" in fig:
        print("| lab.ready warm / cold (floor: %.2f) | %.2f | ≤ 0,60 | %.2f |"
              % (fig["floor_warm_over_cold"], fig["warm_over_cold"], fig["warm_over_cold"] / 0.6))
    if "offline_ms" in fig:
        print("| lab.ready, reload offline (service worker's copy) | %.0f ms | | |"
              % fig["offline_ms"])
    if "embeds_ms" in fig:
        print("| two embedded panels at once, both ready, cold | %.0f ms | | "
              "(each runtime file fetched %d×) |" % (fig["embeds_ms"], fig["embeds_fetches"]))
    print("| bytes transferred, cold load | %.2f MB | ≤ 7 MB | %.2f |"
          % (fig["bytes_mb"], fig["bytes_mb"] / 7))
    print("| longest main-thread task during boot | %.0f ms | (reported) | |"
          % fig["longest_boot_task_ms"])
    print("| bloque.html lab.ready, cold | %.0f ms | | |" % fig["block_ready_ms"])
    boot = fig["boot_ms"]
    print("\nwhere the boot's time goes (medians, ms from navigation): files in %.0f · "
          "Python starting %.0f · NumPy %.0f · lab_core %.0f · ready %.0f · Python's own view "
          "on screen %.0f (Python's first view: %.0f)"
          % (boot["files"], boot["python"], boot["numpy"], boot["lab"], fig["ready_ms"],
             boot["confirmed"], boot["first_view_python"]))


def print_panels(name, rows, target):
    print("\n| lab.set per panel · %s | median | p95 | p95 / %d ms | Python | reply | draw "
          "| whole page, p95 |" % (name, target))
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for label, row in rows.items():
        parts = row["parts_ms"]
        print("| %s | %.1f ms | %.1f ms | %.2f | %.1f | %.1f | %.1f | %.1f ms |" % (
            label, row["median_ms"], row["p95_ms"], row["p95_ms"] / target,
            parts["lab:python"], parts["lab:reply"], parts["lab:draw"], row["whole_page_p95_ms"]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--phone-runs", type=int, default=3)
    parser.add_argument("--toggles", type=int, default=200)
    parser.add_argument("--panel-toggles", type=int, default=100)
    parser.add_argument("--loads-only", action="store_true",
                        help="only the desktop's cold loads (a few minutes): first paint, "
                             "lab.ready and the floor; nothing is written")
    parser.add_argument("--with-phone", action="store_true",
                        help="with --loads-only: the phone's cold loads too (about 2 "
                             "minutes each)")
    parser.add_argument("--panels-only", action="store_true",
                        help="only the lab.set rows per panel, desktop and phone (about 15 "
                             "minutes); nothing is written")
    parser.add_argument("--desktop-only", action="store_true",
                        help="with --panels-only: the desktop rows alone")
    parser.add_argument("--model-only", action="store_true",
                        help="only the capstone's training rows, desktop and phone (a few "
                             "minutes); nothing is written")
    parser.add_argument("--rows", default="",
                        help="with --panels-only: the rows whose label holds one of these "
                             "comma-separated words (e.g. «todas,RoPE»)")
    args = parser.parse_args()
    if args.rows:
        words = [word.strip() for word in args.rows.split(",") if word.strip()]
        PANEL_ROWS[:] = [row for row in PANEL_ROWS if any(word in row[0] for word in words)]
        if not PANEL_ROWS:
            parser.error("no row's label holds any of: %s" % ", ".join(words))

    prepare_floor_runtime()
    BenchHandler.extra = {
        "/__floor.html": (FLOOR_PAGE, "text/html; charset=utf-8", PAGE_CSP),
        "/__floor.js": ((FLOOR_SCRIPT % FLOOR_PREFIX.lstrip("/")).encode(), "text/javascript",
                        PAGE_CSP),
        "/__floor-worker.js": (FLOOR_WORKER.encode(), "text/javascript", WORKER_CSP),
        "/__course.html": (COURSE_PAGE, "text/html; charset=utf-8", COURSE_CSP),
    }
    server = make_server(STATIC, handler_class=BenchHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = "http://127.0.0.1:%d/" % server.server_address[1]
    options = launch_options()
    keys = ("floor", "floor_warm", "first_paint", "ready", "warm", "offline", "bytes",
            "long_task", "block_ready", "boot", "files", "embeds", "embeds_fetches")
    desktop, phone = {k: [] for k in keys}, {k: [] for k in keys}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(**options)
        desk, mobile = Profile(browser, False), Profile(browser, True)
        if args.model_only:
            desk_model = dict(measure_training(desk, base), target=50)
            phone_model = dict(measure_training(mobile, base), target=10)
            browser.close()
            quarter, why = measure_training_quarter_cpu(playwright, base, options)
            server.shutdown()
            print_training("escritorio (desktop)", desk_model)
            print_training("móvil (phone: 4× CPU, Slow 4G)", phone_model)
            print_quarter(quarter, why)
            return
        if args.panels_only:
            desk_rows = measure_panels(desk, base, args.panel_toggles)
            phone_rows = None if args.desktop_only else \
                measure_panels(mobile, base, max(20, args.panel_toggles // 4))
            browser.close()
            server.shutdown()
            print_panels("desktop", desk_rows, 16)
            if phone_rows:
                print_panels("phone", phone_rows, 100)
            return
        measure_loads(desk, base, args.runs, desktop, with_warm=True)
        measure_embeds(desk, base, args.runs, desktop)
        if args.loads_only:
            if args.with_phone:
                measure_loads(mobile, base, args.phone_runs, phone, with_warm=False)
                measure_embeds(mobile, base, 1, phone)
            browser.close()
            server.shutdown()
            print_profile("escritorio (desktop), loads only", summary(desktop))
            print_files(summary(desktop))
            if args.with_phone:
                print_profile("móvil (phone: 4× CPU, Slow 4G), loads only", summary(phone),
                              ready_target=0.80)
            return
        measure_loads(mobile, base, args.phone_runs, phone, with_warm=False)
        measure_embeds(mobile, base, 1, phone)
        page = desk.page()
        page.goto(base)
        settled(page)
        sets = page.evaluate(ROUND_TRIPS, [PANEL_ROWS[0][3], args.toggles])["times"]
        page.context.close()
        desk_panels = measure_panels(desk, base, args.panel_toggles)
        phone_panels = measure_panels(mobile, base, max(20, args.panel_toggles // 4))
        desk_model = dict(measure_training(desk, base), target=50)
        phone_model = dict(measure_training(mobile, base), target=10)
        browser.close()
        quarter, why = measure_training_quarter_cpu(playwright, base, options)
    server.shutdown()

    figures = {
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "machine": "%s, %d cores, %s" % (platform.platform(terse=True), os.cpu_count(),
                                         chromium_version(options)),
        "runs": args.runs, "phone_runs": args.phone_runs,
        "desktop": summary(desktop), "phone": summary(phone),
        "set_ms_median": statistics.median(sets), "set_ms_p95": p95(sets),
        "panels": {"desktop": desk_panels, "phone": phone_panels},
        "model": {"desktop": desk_model, "phone": phone_model, "quarter_cpu": quarter},
        "samples": {"desktop": desktop, "phone": phone},
    }
    print("Attention Lab benchmark · %s · %s" % (figures["date"], figures["machine"]))
    print("medians of %d cold loads (desktop) and %d (phone: 4× CPU, Slow 4G), a fresh "
          "browser context each" % (args.runs, args.phone_runs))
    print_profile("escritorio (desktop)", figures["desktop"])
    print("| lab.set round trip, 200 toggles: median, p95 | %.1f ms, %.1f ms | ≤ 16 ms | %.2f |"
          % (figures["set_ms_median"], figures["set_ms_p95"], figures["set_ms_p95"] / 16))
    print_files(figures["desktop"])
    print_profile("móvil (phone: 4× CPU, Slow 4G)", figures["phone"], ready_target=0.80)
    print_panels("desktop", desk_panels, 16)
    print_panels("phone", phone_panels, 100)
    print_training("escritorio (desktop)", desk_model)
    print_training("móvil (phone: 4× CPU, Slow 4G)", phone_model)
    print_quarter(quarter, why)
    out = ROOT / ".bench"
    out.mkdir(exist_ok=True)
    (out / "latest.json").write_text(json.dumps(figures, indent=2) + "\n")
    print("\nwritten: .bench/latest.json")


if __name__ == "__main__":
    main()
