"""The runtime the build ships holds what the lab opens, and little else.

scripts/build.py repacks Pyodide's two archives (the standard library,
NumPy) with the files of scripts/runtime_trace.json plus a margin
(scripts/runtime_pack.py). Here the browser's own loader reads them: the
trimmed runtime boots, every kind of request of both labs is answered
(scripts/runtime_exercise.py, the run the trace was made from), and every
file Python opened on the way is one the trace names, so a new import in
lab_core fails here with what to do, not on a reader's page. The modules
it imports ship compiled (scripts/compile_bytecode.cjs): each is checked
against its own source here, and in the browser Python compiles none.
"""
import json
import sys

import pytest

from conftest import ROOT, STATIC

sys.path.insert(0, str(ROOT / "scripts"))

import runtime_pack  # noqa: E402
from trace_runtime import COLLECT, HOOK, python_in, run_exercise  # noqa: E402

# The run changes Python's own state: a first visit of its own.
pytestmark = pytest.mark.own_context

TRACE = json.loads((ROOT / "scripts" / "runtime_trace.json").read_text(encoding="utf-8"))
PYODIDE = ROOT / "node_modules" / "@pyodide" / "pyodide" / "dist"
ARCHIVES = (("pyodide.asm.js", "pyodide.asm.data"), ("numpy.js", "numpy.data"))
# Python 3.8's bytecode (PEP 552 header): its magic number, and the key its
# importlib hashes sources with (the magic as a little-endian integer).
MAGIC_38 = (3413).to_bytes(2, "little") + b"\r\n"
HASH_KEY_38 = int.from_bytes(MAGIC_38, "little")


def siphash24(k0, k1, data):
    """SipHash-2-4 (Aumasson and Bernstein), the keyed hash Python 3.8 puts
    in a hash-based .pyc (CPython 3.11's own, _imp.source_hash, is
    SipHash-1-3): written out here, an independent computation."""
    mask = (1 << 64) - 1

    def rotl(x, b):
        return ((x << b) | (x >> (64 - b))) & mask

    v = [k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D,
         k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573]

    def rounds(n):
        for _ in range(n):
            v[0] = (v[0] + v[1]) & mask
            v[1] = rotl(v[1], 13) ^ v[0]
            v[0] = rotl(v[0], 32)
            v[2] = (v[2] + v[3]) & mask
            v[3] = rotl(v[3], 16) ^ v[2]
            v[0] = (v[0] + v[3]) & mask
            v[3] = rotl(v[3], 21) ^ v[0]
            v[2] = (v[2] + v[1]) & mask
            v[1] = rotl(v[1], 17) ^ v[2]
            v[2] = rotl(v[2], 32)

    whole = len(data) // 8 * 8
    words = [int.from_bytes(data[i:i + 8], "little") for i in range(0, whole, 8)]
    words.append(int.from_bytes(data[whole:], "little") | ((len(data) & 0xFF) << 56))
    for m in words:
        v[3] ^= m
        rounds(2)
        v[0] ^= m
    v[2] ^= 0xFF
    rounds(4)
    return (v[0] ^ v[1] ^ v[2] ^ v[3]).to_bytes(8, "little")


def test_siphash24_gives_the_reference_vector():
    # The SipHash paper's test vector: key 00..0f, message 00..0e.
    key = bytes(range(16))
    k0, k1 = int.from_bytes(key[:8], "little"), int.from_bytes(key[8:], "little")
    assert siphash24(k0, k1, bytes(range(15))) == bytes.fromhex("e545be4961ca29a1")


def bundled():
    manifest = json.loads((STATIC / "manifest.json").read_text(encoding="utf-8"))
    return manifest, manifest["runtimes"]["bundled"]


def archives(folder):
    """Every file of the runtime's two archives in `folder`: {path: bytes}."""
    files = {}
    for loader, archive in ARCHIVES:
        files.update(runtime_pack.read((folder / loader).read_text(encoding="utf-8"),
                                       (folder / archive).read_bytes()))
    return files


# In the worker's Python, after the exercise: the modules loaded from a file
# of the runtime, and the code of a few of them against a compile of the
# sources the test sends (Pyodide's own, from node_modules).
LOADED = """
import json, marshal, sys
_loaded = sorted(m.__file__ for m in list(sys.modules.values())
                 if isinstance(getattr(m, "__file__", None), str) and m.__file__.startswith("/lib/"))
_same = []
for _path, _source in json.loads(_sources).items():
    with open(_path + "c", "rb") as _f:
        _pyc = _f.read()
    _same.append(marshal.loads(_pyc[16:]) == compile(_source, _path, "exec", dont_inherit=True))
json.dumps([_loaded, _same])
"""
SAMPLE = ("/lib/python3.8/abc.py", "/lib/python3.8/site-packages/numpy/core/numeric.py",
          "/lib/python3.8/json/decoder.py")


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
    opened = {runtime_pack.source_path(f) for f in opened}
    assert opened - set(TRACE["files"]) == set(), (
        "the lab opens files scripts/runtime_trace.json does not name: run `make trace`")
    # Every module came compiled from the build (or is a compiled extension):
    # Python compiled none of them from source on the reader's machine.
    original = archives(PYODIDE)
    sources = json.dumps({path: original[path].decode("utf-8") for path in SAMPLE})
    loaded, same = json.loads(worker.evaluate("(code) => self.pyodide.runPython(code)",
                                              "_sources = %r\n%s" % (sources, LOADED)))
    assert len(loaded) > 150 and not [f for f in loaded if not f.endswith((".pyc", ".so"))]
    assert same == [True] * len(SAMPLE)
    # The page still answers afterwards, from its own conversation.
    lab.page.evaluate("(change) => window.lab.set(change)", change)
    lab.page.evaluate("window.lab.settled()")
    assert lab.page.evaluate("window.lab.state")[next(iter(change))] == next(iter(change.values()))


def test_the_archives_hold_the_traced_files_unchanged_and_no_tests():
    manifest, runtime = bundled()
    folder = STATIC / runtime["indexURL"]
    assert runtime["pyodide"] == TRACE["pyodide"]
    shipped, original = archives(folder), archives(PYODIDE)
    modules = {path for path in TRACE["files"] if path.endswith(".py")}
    assert len(modules) > 200
    assert {runtime_pack.source_path(path) for path in shipped} >= set(TRACE["files"])
    # The modules the lab imports ship as bytecode alone, each made from its
    # own source: Python 3.8's magic, an unchecked hash-based .pyc (PEP 552),
    # the hash of that file's original source (computed here).
    assert {path for path in shipped if path.endswith(".pyc")} == {p + "c" for p in modules}
    assert not modules & set(shipped)
    for path in modules:
        pyc, source = shipped[path + "c"], original[path]
        assert pyc[:4] == MAGIC_38 and int.from_bytes(pyc[4:8], "little") == 1, path
        assert pyc[8:16] == siphash24(HASH_KEY_38, 0, source), path
    assert all(shipped[path] == original[path] for path in shipped if not path.endswith(".pyc"))
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


def test_a_compiler_that_leaves_a_module_out_stops_the_repack():
    dist = PYODIDE
    with pytest.raises(runtime_pack.PackError, match="one .pyc per traced module"):
        runtime_pack.repack((dist / "pyodide.asm.js").read_text(encoding="utf-8"),
                            (dist / "pyodide.asm.data").read_bytes(), ["/lib/python3.8/abc.py"],
                            compile_sources=lambda sources: {})
