"""scripts/runtime_pack.py: Pyodide 0.17's archives, read and repacked.

The archives here are made by hand in the file packager's two spellings
(pyodide.asm.js quotes its keys, numpy.js does not), their chunks
LZ4-compressed with the lz4 library; the browser's own loader reading the
repacked runtime is tests/e2e/test_runtime_files.py.
"""
import re
import sys
from pathlib import Path

import lz4.block
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

import runtime_pack  # noqa: E402
from runtime_pack import CHUNK, PackError, keep_rule, read, repack, write  # noqa: E402

FILES = {
    "/lib/python3.8/json/__init__.py": b"import json.decoder\n" * 300,   # 6.000 bytes
    "/lib/python3.8/json/decoder.py": bytes(range(256)) * 9,            # 2.304, incompressible-ish
    "/lib/python3.8/json/tests/test_x.py": b"assert True\n" * 200,
    "/lib/python3.8/email/parser.py": b"# email\n" * 500,
    "/lib/python3.8/abc.py": b"",                                          # an empty file
}


def packed(files, quoted):
    """A loader script and its archive as the file packager writes them."""
    plain = b"".join(files.values())
    chunks, flags = [], []
    for offset in range(0, len(plain), CHUNK):
        raw = plain[offset:offset + CHUNK]
        small = lz4.block.compress(raw, store_size=False)
        # The packager stores a chunk that LZ4 does not shrink.
        chunks.append(small if len(small) < len(raw) else raw)
        flags.append(1 if len(small) < len(raw) else 0)
    offsets, at = [], 0
    for chunk in chunks:
        offsets.append(at)
        at += len(chunk)
    q = '"' if quoted else ""
    entries, start = [], 0
    for name, data in files.items():
        entries.append('{%sfilename%s:"%s",%sstart%s:%d,%send%s:%d,%saudio%s:0}'
                       % (q, q, name, q, q, start, q, q, start + len(data), q, q))
        start += len(data)
    archive = b"".join(chunks) + bytes(2 * CHUNK)
    text = ('var x=1;loadPackage({%sfiles%s:[%s],%sremote_package_size%s:%d,'
            '%spackage_uuid%s:"u"});function p(){var compressedData={%sdata%s:null,'
            '%scachedOffset%s:%d,%scachedIndexes%s:[-1,-1],%scachedChunks%s:[null,null],'
            '%soffsets%s:[%s],%ssizes%s:[%s],%ssuccesses%s:[%s]};go(compressedData)}'
            % (q, q, ",".join(entries), q, q, len(archive), q, q, q, q, q, q, at, q, q, q, q,
               q, q, ",".join(map(str, offsets)), q, q,
               ",".join(str(len(c)) for c in chunks), q, q, ",".join(map(str, flags))))
    return text, archive


@pytest.mark.parametrize("quoted", [True, False])
def test_read_gives_back_every_file(quoted):
    text, archive = packed(FILES, quoted)
    assert re.search(r'successes"?:\[[01,]*1', text)  # some chunks are compressed
    assert read(text, archive) == FILES


@pytest.mark.parametrize("quoted", [True, False])
def test_written_archive_is_stored_chunks_of_the_plain_bytes(quoted):
    text, archive = packed(FILES, quoted)
    kept = {k: v for k, v in FILES.items() if "email" not in k}
    new_text, new_archive = write(text, kept)
    plain = b"".join(kept.values())
    # Stored: the plain bytes, then the loader's two-chunk cache room.
    assert new_archive == plain + bytes(2 * CHUNK)
    assert read(new_text, new_archive) == kept
    assert len(plain) == 6000 + 2304 + 2400  # 10.704 bytes: five whole chunks and 464
    q = '"' if quoted else ""
    assert "successes%s:[0,0,0,0,0,0]" % q in new_text
    assert "offsets%s:[0,2048,4096,6144,8192,10240]" % q in new_text
    assert "sizes%s:[2048,2048,2048,2048,2048,464]" % q in new_text
    assert "remote_package_size%s:%d" % ('"' if quoted else "", len(new_archive)) in new_text
    # Everything around the metadata is the loader as it was.
    assert new_text.startswith("var x=1;loadPackage(") and new_text.endswith("go(compressedData)}")


def test_minified_numbers_are_read():
    # The minifier writes 3581000 as 3581e3.
    text, archive = packed({"/a.py": b"a" * 3000, "/b.py": b"b" * 1000}, quoted=True)
    text = text.replace('"end":3000', '"end":3e3').replace('"start":3000', '"start":3e3')
    assert read(text, archive) == {"/a.py": b"a" * 3000, "/b.py": b"b" * 1000}


def test_an_archive_of_another_length_is_refused():
    text, archive = packed(FILES, quoted=False)
    with pytest.raises(PackError, match="expects"):
        read(text, archive[:-1])


def test_a_loader_without_its_chunk_table_is_refused():
    text, archive = packed(FILES, quoted=False)
    with pytest.raises(PackError, match="chunk table"):
        read(text.replace("compressedData={", "compressed={"), archive)


def test_keep_rule_keeps_folders_the_trace_opened_but_not_their_tests():
    paths = list(FILES) + ["/lib/python3.8/json/scanner.py", "/lib/python3.8/json/tests/__init__.py"]
    kept = keep_rule(paths, ["/lib/python3.8/json/__init__.py", "/lib/python3.8/abc.py"])
    assert kept == ["/lib/python3.8/json/__init__.py", "/lib/python3.8/json/decoder.py",
                    "/lib/python3.8/abc.py", "/lib/python3.8/json/scanner.py"]


def test_extensions_only_tests_import_are_dropped_unless_traced():
    core = "/lib/python3.8/site-packages/numpy/core/"
    paths = [core + name for name in ("__init__.py", "_multiarray_umath.so", "_umath_tests.so",
                                      "_rational_tests.so", "_multiarray_tests.so", "_dummy.so",
                                      "umath_tests.py")]
    kept = keep_rule(paths, [core + "__init__.py", core + "_multiarray_tests.so"])
    # A Python module named like a test is a module like any other: the
    # margin keeps it; only compiled test extensions are dropped.
    assert kept == [core + "__init__.py", core + "_multiarray_umath.so",
                    core + "_multiarray_tests.so", core + "umath_tests.py"]


def test_a_traced_test_file_is_kept():
    kept = keep_rule(list(FILES), ["/lib/python3.8/json/tests/test_x.py"])
    assert kept == ["/lib/python3.8/json/tests/test_x.py"]


def test_repack_returns_what_it_kept():
    text, archive = packed(FILES, quoted=True)
    new_text, new_archive, kept = repack(text, archive, ["/lib/python3.8/email/parser.py"])
    assert kept == ["/lib/python3.8/email/parser.py"]
    assert read(new_text, new_archive) == {"/lib/python3.8/email/parser.py": b"# email\n" * 500}
    assert runtime_pack.CACHE_ROOM == 2 * CHUNK
