"""Trace which files of Pyodide's archives the lab opens: scripts/runtime_trace.json.

The build ships only those (plus a margin: scripts/runtime_pack.py). Run
this (`make trace`) when lab_core starts importing something new or the
bundled Pyodide changes; tests/e2e/test_runtime_files.py says when.

It builds a site with Pyodide's archives whole (build.py --untrimmed) into
build/trace-site/, opens both labs in Chromium, and in each page's Python
worker: records every file Python opens (an audit hook, PEP 578), runs
scripts/runtime_exercise.py (every kind of request the page makes), then
adds the file of every module loaded since the boot began. Paths under
/lib/ are what the archives hold; lab_core itself comes from its wheel.

Usage: python scripts/trace_runtime.py [--site DIR] (DIR: an untrimmed site
already built)
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from chromium import launch_options  # noqa: E402
from serve import make_server  # noqa: E402

OUT = ROOT / "scripts" / "runtime_trace.json"
PAGES = ("index.html", "bloque.html")

# Run in the worker's Python before the exercise: every open() from now on.
HOOK = """
import sys
_opened = set()
def _audit(event, args):
    if event == "open" and isinstance(args[0], str):
        _opened.add(args[0])
sys.addaudithook(_audit)
"""
# After it: the files Python opened or imported, as sorted JSON.
COLLECT = """
import json, sys
_files = set(_opened)
for _module in list(sys.modules.values()):
    _file = getattr(_module, "__file__", None)
    if isinstance(_file, str):
        _files.add(_file)
json.dumps(sorted(_files))
"""


def python_in(page):
    """The page's Python worker (the one that has booted Pyodide)."""
    for worker in page.workers:
        if worker.evaluate("typeof self.pyodide === 'object'"):
            return worker
    raise SystemExit("trace: no worker with Pyodide on %s" % page.url)


def run_exercise(worker, labs=None):
    """scripts/runtime_exercise.py in the worker's Python: its summary.
    `labs`: the labs whose requests to make (None: all)."""
    source = (ROOT / "scripts" / "runtime_exercise.py").read_text(encoding="utf-8")
    call = "exercise()" if labs is None else "exercise(labs=%r)" % (tuple(labs),)
    code = source + "\nimport json\njson.dumps(%s)" % call
    return json.loads(worker.evaluate("(code) => self.pyodide.runPython(code)", code))


def trace(site):
    from playwright.sync_api import sync_playwright

    server = make_server(site)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = "http://127.0.0.1:%d/" % server.server_address[1]
    files, summaries = set(), []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(**launch_options())
            for name in PAGES:
                page = browser.new_page()
                page.goto(base + name)
                page.evaluate("window.lab.ready")
                worker = python_in(page)
                worker.evaluate("(code) => self.pyodide.runPython(code)", HOOK)
                summary = run_exercise(worker)
                if summary["problems"]:
                    raise SystemExit("trace: %s: %s" % (name, summary["problems"][:3]))
                summaries.append("%s %d requests" % (name, summary["requests"]))
                files |= set(json.loads(worker.evaluate(
                    "(code) => self.pyodide.runPython(code)", COLLECT)))
                page.close()
            browser.close()
    finally:
        server.shutdown()
    # Bytecode Python might write for itself (__pycache__) is not the archives'.
    return sorted(f for f in files if f.startswith("/lib/") and "/__pycache__/" not in f), summaries


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, help="an untrimmed site already built")
    args = parser.parse_args()
    site = args.site
    if site is None:
        site = ROOT / "build" / "trace-site"
        subprocess.run([sys.executable, str(ROOT / "scripts" / "build.py"), "--untrimmed",
                        "--out", str(site)], check=True)
    manifest = json.loads((site / "manifest.json").read_text(encoding="utf-8"))
    version = manifest["runtimes"]["bundled"]["pyodide"]
    files, summaries = trace(site.resolve())
    OUT.write_text(json.dumps({"pyodide": version, "files": files}, indent=1) + "\n",
                   encoding="utf-8")
    print("traced %d files (%s) into %s" % (len(files), "; ".join(summaries), OUT.relative_to(ROOT)))


if __name__ == "__main__":
    main()
