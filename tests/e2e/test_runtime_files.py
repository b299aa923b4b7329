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

# The run changes Python's own state, and the bytecode tests start from none:
# a first visit of its own.
pytestmark = pytest.mark.own_context

TRACE = json.loads((ROOT / "scripts" / "runtime_trace.json").read_text(encoding="utf-8"))
PYODIDE = ROOT / "node_modules" / "@pyodide" / "pyodide" / "dist"


def bundled():
    manifest = json.loads((STATIC / "manifest.json").read_text(encoding="utf-8"))
    return manifest, manifest["runtimes"]["bundled"]


# Each page makes its own lab's requests: together, every lab's.
@pytest.mark.parametrize("page_name, lab_name, change", [
    ("index.html", "attention", {"mask": "causal"}), ("bloque.html", "block", {"heads": 1}),
    ("modelo.html", "model", {"mask": "bidirectional"})])
def test_every_request_is_answered_from_the_trimmed_runtime(lab, page_name, lab_name, change):
    lab.open(lab.base_url + page_name)
    worker = python_in(lab.page)
    worker.evaluate("(code) => self.pyodide.runPython(code)", HOOK)
    summary = run_exercise(worker, [lab_name])
    assert summary["problems"] == [] and summary["requests"] > 300
    opened = {f for f in json.loads(worker.evaluate("(code) => self.pyodide.runPython(code)",
                                                    COLLECT))
              if f.startswith("/lib/") and "/__pycache__/" not in f}
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


BYTECODE = "body[data-bytecode='saved']"
BYTECODE_AFTER_MS = 10000  # js/python.js
# In the worker's Python: how many modules have bytecode in __pycache__, and
# whether a sample's equals what compiling its source gives.
PYCACHE = """
import glob, json, marshal, importlib.util
_pycs = glob.glob("/lib/python3.8/**/__pycache__/*.pyc", recursive=True)
_same = []
for _path in ("/lib/python3.8/abc.py", "/lib/python3.8/site-packages/numpy/core/numeric.py"):
    with open(_path, "rb") as _f:
        _source = _f.read()
    with open(importlib.util.cache_from_source(_path), "rb") as _f:
        _pyc = _f.read()
    _same.append(int.from_bytes(_pyc[4:8], "little") == 1  # unchecked hash (PEP 552)
                 and _pyc[8:16] == importlib.util.source_hash(_source)
                 and marshal.loads(_pyc[16:]) == compile(_source, _path, "exec", dont_inherit=True))
json.dumps([len(_pycs), _same])
"""


def saved_bytecode(page):
    """The bytecode a page keeps for the next visit, saved: the page waits
    10 s after its first view for a reader who stays (js/python.js); the
    test's clock jumps over that wait, and the compiling itself is real."""
    page.wait_for_selector("body[data-live='true']", state="attached")
    page.clock.fast_forward(BYTECODE_AFTER_MS)
    page.wait_for_selector(BYTECODE, state="attached", timeout=120000)


def test_a_second_visit_starts_from_the_first_ones_bytecode(lab):
    lab.page.clock.install()
    lab.open(lab.base_url + "?mask=bidirectional")
    saved_bytecode(lab.page)
    lab.page.reload()
    lab.page.evaluate("window.lab.ready")
    count, same = json.loads(python_in(lab.page).evaluate(
        "(code) => self.pyodide.runPython(code)", PYCACHE))
    # Python writes no bytecode of its own here (sys.dont_write_bytecode):
    # every file came from the first visit, one per module it had loaded.
    assert count > 200 and same == [True, True]
    assert lab.cell("Puntuaciones", "banco", "parque") == "1,41"


def test_damaged_bytecode_is_ignored_and_replaced(lab):
    lab.page.clock.install()
    lab.open(lab.base_url + "?mask=bidirectional")
    saved_bytecode(lab.page)
    lab.page.evaluate("""async () => {
      const cache = await caches.open('attention-lab-bytecode');
      const [key] = await cache.keys();
      const response = await cache.match(key);
      const bytes = new Uint8Array(await response.arrayBuffer());
      bytes[bytes.length - 1] ^= 0xff;  // one byte changed, the digest kept
      await cache.put(key, new Response(bytes, { headers: response.headers }));
    }""")
    lab.page.reload()
    lab.page.evaluate("window.lab.ready")
    count, _ = json.loads(python_in(lab.page).evaluate(
        "(code) => self.pyodide.runPython(code.split('_same = []')[0] + 'json.dumps([len(_pycs), 0])')",
        PYCACHE))
    assert count == 0  # refused by its SHA-256: Python compiled from source
    assert lab.cell("Puntuaciones", "banco", "parque") == "1,41"
    saved_bytecode(lab.page)  # and compiled anew
