"""The runtime the build ships holds what the lab opens, and little else.

scripts/build.py repacks Pyodide's two archives (the standard library,
NumPy) with the files of scripts/runtime_trace.json plus a margin
(scripts/runtime_pack.py). Here the browser's own loader reads them: the
trimmed runtime boots, every kind of request of both labs is answered
(scripts/runtime_exercise.py, the run the trace was made from), and every
file Python opened on the way is one the trace names, so a new import in
lab_core fails here with what to do, not on a reader's page.
"""
import json
import sys

import pytest

from conftest import ROOT, STATIC

sys.path.insert(0, str(ROOT / "scripts"))

import runtime_pack  # noqa: E402
from trace_runtime import COLLECT, HOOK, python_in, run_exercise  # noqa: E402

pytestmark = pytest.mark.cold  # the run changes Python's own state: a page of its own

TRACE = json.loads((ROOT / "scripts" / "runtime_trace.json").read_text(encoding="utf-8"))
PYODIDE = ROOT / "node_modules" / "@pyodide" / "pyodide" / "dist"


def bundled():
    manifest = json.loads((STATIC / "manifest.json").read_text(encoding="utf-8"))
    return manifest, manifest["runtimes"]["bundled"]


@pytest.mark.parametrize("page_name, change", [("index.html", {"mask": "causal"}),
                                               ("bloque.html", {"heads": 1})])
def test_every_request_is_answered_from_the_trimmed_runtime(lab, page_name, change):
    lab.open(lab.base_url + page_name)
    worker = python_in(lab.page)
    worker.evaluate("(code) => self.pyodide.runPython(code)", HOOK)
    summary = run_exercise(worker)
    assert summary["problems"] == [] and summary["requests"] > 1000
    opened = {f for f in json.loads(worker.evaluate("(code) => self.pyodide.runPython(code)",
                                                    COLLECT)) if f.startswith("/lib/")}
    assert opened - set(TRACE["files"]) == set(), (
        "the lab opens files scripts/runtime_trace.json does not name: run `make trace`")
    # The page still answers afterwards, from its own conversation.
    lab.page.evaluate("(change) => window.lab.set(change)", change)
    lab.page.evaluate("window.lab.settled()")
    assert lab.page.evaluate("window.lab.state")[next(iter(change))] == next(iter(change.values()))


def test_the_archives_hold_the_traced_files_unchanged_and_no_tests():
    manifest, runtime = bundled()
    folder = STATIC / runtime["indexURL"]
    assert runtime["pyodide"] == TRACE["pyodide"]
    shipped, original = {}, {}
    for loader, archive in (("pyodide.asm.js", "pyodide.asm.data"), ("numpy.js", "numpy.data")):
        shipped.update(runtime_pack.read((folder / loader).read_text(encoding="utf-8"),
                                         (folder / archive).read_bytes()))
        original.update(runtime_pack.read((PYODIDE / loader).read_text(encoding="utf-8"),
                                          (PYODIDE / archive).read_bytes()))
    assert set(TRACE["files"]) <= set(shipped)
    assert all(shipped[path] == original[path] for path in shipped)
    assert not [p for p in shipped if "/tests/" in p or "/numpy/f2py/" in p
                or "/distutils/" in p or "/email/" in p]
    # What a cold visit downloads for Python, as brotli crosses the wire.
    files = [folder / f["name"] for f in runtime["files"]] + [STATIC / manifest["wheel"]["path"]]
    wire = sum((f.parent / (f.name + ".br")).stat().st_size if (f.parent / (f.name + ".br")).is_file()
               else f.stat().st_size for f in files)
    assert wire < 6.0e6, "the runtime and the wheel cross the wire in %.2f MB" % (wire / 1e6)


def test_the_build_stops_when_the_trace_names_a_file_the_archives_lack(tmp_path, monkeypatch):
    import build

    trace = dict(TRACE, files=TRACE["files"] + ["/lib/python3.8/nowhere.py"])
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(trace), encoding="utf-8")
    monkeypatch.setattr(build, "TRACE", path)
    with pytest.raises(SystemExit, match="nowhere.py.*make trace"):
        build.copy_runtime(tmp_path / "site")
    path.write_text(json.dumps(dict(TRACE, pyodide="0.16.0")), encoding="utf-8")
    with pytest.raises(SystemExit, match="0.16.0.*make trace"):
        build.copy_runtime(tmp_path / "site2")
