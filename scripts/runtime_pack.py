"""Repack Pyodide 0.17's data files: only the files the lab opens, stored
so that HTTP compression can work on them.

Pyodide 0.17 ships the standard library (pyodide.asm.data, listed inside
pyodide.asm.js) and each package (numpy.data, listed in numpy.js) as
Emscripten file-packager archives: the files' bytes one after another, cut
into 2.048-byte chunks, each chunk LZ4-compressed when that makes it
smaller. The loader's metadata says where each file starts and ends in the
uncompressed stream, and where each chunk is in the archive and whether it
is compressed ("successes").

Two things make those archives heavier than they need to be:

- LZ4 output is nearly incompressible, so brotli on top of it gains little.
  Stored chunks ("successes" 0, which the loader copies as they are) let
  the server's brotli see the plain bytes: NumPy's archive crosses the wire
  in about 2,7 MB instead of 4,7, the standard library's in 1,8 instead of
  3,1, before anything is dropped.
- Most of the files are never opened by the lab: NumPy's tests, f2py and
  distutils, and most of the standard library (email, asyncio, unittest…).

And one makes every boot slower: the archives hold sources only, so every
boot compiles the couple of hundred modules it imports. The modules the
trace imports can be shipped compiled instead (scripts/compile_bytecode.cjs
compiles them with the runtime's own Python at build time).

`repack(js_text, data, keep)` returns the loader script and the archive
with only the kept files, stored. The loader itself (Emscripten's code) is
untouched: only its metadata literals are rewritten.

Which files to keep comes from a trace of the lab at work
(scripts/trace_runtime.py writes scripts/runtime_trace.json) plus a margin,
`keep_rule`: every file of a folder in which the trace opened a file is
kept (a module of an imported package may be imported later, on a rarer
path: the margin costs little because the heavy parts are whole folders
nobody imports), except test folders, which nothing imports at run time.
"""
from __future__ import annotations

import re
from pathlib import PurePosixPath

import lz4.block

CHUNK = 2048  # Emscripten's LZ4.CHUNK_SIZE
# The loader keeps two decompressed chunks in a cache that lives after the
# archive's last chunk ("cachedOffset"): the archive carries the room.
CACHE_ROOM = 2 * CHUNK

_FILE = re.compile(r'\{"?filename"?:"([^"]+)","?start"?:([\de.+]+),"?end"?:([\de.+]+),"?audio"?:0\}')
_FILES = re.compile(r'("?files"?:\[)(\{"?filename"?:.*?)(\]\s*,\s*"?remote_package_size"?:)(\d+)')
_COMPRESSED = re.compile(
    r'(compressedData=\{"?data"?:null,"?cachedOffset"?:)(\d+)'
    r'(,"?cachedIndexes"?:\[-1,-1\],"?cachedChunks"?:\[null,null\],"?offsets"?:\[)([\de,.+]+)'
    r'(\],"?sizes"?:\[)([\de,.+]+)(\],"?successes"?:\[)([01,]+)(\]\})')


class PackError(ValueError):
    """The loader script is not the file packager's output this module knows."""


def _numbers(text):
    # The minifier writes some offsets as 1e3, 2e4…
    return [int(float(x)) for x in text.split(",")]


def _one(pattern, text, what):
    matches = list(pattern.finditer(text))
    if len(matches) != 1:
        raise PackError("expected one %s in the loader script, found %d" % (what, len(matches)))
    return matches[0]


def read(js_text, data):
    """The archive's files: {path: bytes}, in the archive's order."""
    listing = _one(_FILES, js_text, "file list")
    files = [(m.group(1), int(float(m.group(2))), int(float(m.group(3))))
             for m in _FILE.finditer(listing.group(2))]
    if len(files) != listing.group(2).count("filename"):
        raise PackError("a file entry of the loader script is not in the expected form")
    chunks = _one(_COMPRESSED, js_text, "chunk table")
    offsets, sizes = _numbers(chunks.group(4)), _numbers(chunks.group(6))
    stored = [flag == "0" for flag in chunks.group(8).split(",")]
    if not (len(offsets) == len(sizes) == len(stored)):
        raise PackError("the chunk table's columns differ in length")
    if len(data) != int(chunks.group(2)) + CACHE_ROOM:
        raise PackError("the archive is %d bytes, its loader expects %d"
                        % (len(data), int(chunks.group(2)) + CACHE_ROOM))
    plain = bytearray()
    for offset, size, raw in zip(offsets, sizes, stored):
        chunk = data[offset:offset + size]
        plain += chunk if raw else lz4.block.decompress(chunk, uncompressed_size=CHUNK)
    if files and files[-1][2] != len(plain):
        raise PackError("the files end at %d, the chunks hold %d bytes" % (files[-1][2], len(plain)))
    return {name: bytes(plain[start:end]) for name, start, end in files}


def write(js_text, files):
    """The loader script and the archive for `files` ({path: bytes}), stored."""
    listing = _one(_FILES, js_text, "file list")
    chunks = _one(_COMPRESSED, js_text, "chunk table")
    quoted = listing.group(2).startswith('{"')
    entry = ('{"filename":"%s","start":%d,"end":%d,"audio":0}' if quoted
             else '{filename:"%s",start:%d,end:%d,audio:0}')
    entries, plain = [], bytearray()
    for name, data in files.items():
        entries.append(entry % (name, len(plain), len(plain) + len(data)))
        plain += data
    count = -(-len(plain) // CHUNK)
    offsets = [i * CHUNK for i in range(count)]
    sizes = [min(CHUNK, len(plain) - offset) for offset in offsets]
    archive = bytes(plain) + bytes(CACHE_ROOM)
    text = js_text[:listing.start()] + listing.group(1) + ",".join(entries) + listing.group(3) \
        + str(len(archive)) + js_text[listing.end():]
    chunks = _one(_COMPRESSED, text, "chunk table")
    table = (chunks.group(1) + str(len(plain)) + chunks.group(3) + ",".join(map(str, offsets))
             + chunks.group(5) + ",".join(map(str, sizes)) + chunks.group(7)
             + ",".join("0" * count) + chunks.group(9))
    return text[:chunks.start()] + table + text[chunks.end():], archive


TEST_FOLDERS = ("tests", "test", "testing")


def is_test(path):
    """In a test folder, or a compiled extension that only tests import
    (NumPy's `_umath_tests.so`, `_rational_tests.so`, ...). An extension
    costs more than its bytes: Pyodide links every one of a package's
    extensions when it loads the package, imported or not."""
    pure = PurePosixPath(path)
    if any(part in TEST_FOLDERS for part in pure.parent.parts):
        return True
    return pure.suffix == ".so" and (pure.stem.endswith("_tests") or pure.stem == "_dummy")


def keep_rule(paths, traced):
    """The paths to keep: every file in a folder where the trace opened one,
    except tests (those only if the trace opened them: is_test)."""
    traced = set(traced)
    folders = {str(PurePosixPath(path).parent) for path in traced}
    kept = []
    for path in paths:
        if path in traced or (str(PurePosixPath(path).parent) in folders and not is_test(path)):
            kept.append(path)
    return kept


def bytecode_path(path):
    """Where Python finds a module shipped as bytecode alone: beside where
    its source would be, «.pyc» for «.py» (the import system's sourceless
    loader; a __pycache__ entry would need its source beside it)."""
    return path + "c"


def source_path(path):
    """The module a shipped path stands for: bytecode_path undone."""
    return path[:-1] if path.endswith(".pyc") and "/__pycache__/" not in path else path


def repack(js_text, data, traced, compile_sources=None):
    """(loader script, archive, kept paths) with the files keep_rule keeps.

    compile_sources({path: source bytes}) -> {path: .pyc bytes}, when given,
    compiles the traced modules of this archive: each is shipped as its
    bytecode alone (bytecode_path), so Python imports it without compiling.
    The other kept sources (the margin, imported on rarer paths if ever)
    stay source."""
    files = read(js_text, data)
    kept = keep_rule(files, traced)
    traced = set(traced)
    modules = {path: files[path] for path in kept if path in traced and path.endswith(".py")}
    compiled = compile_sources(modules) if compile_sources and modules else {}
    if compile_sources and set(compiled) != set(modules):
        raise PackError("the compiler did not return one .pyc per traced module")
    shipped = {}
    for path in kept:
        if path in compiled:
            shipped[bytecode_path(path)] = compiled[path]
        else:
            shipped[path] = files[path]
    new_js, archive = write(js_text, shipped)
    return new_js, archive, kept
