"""The bytecode cache kept between browser visits, exercised in CPython."""
import importlib
import importlib.util
import marshal
import shutil
import sys

from lab_core.bytecode import CompileJob, unpack


def test_compile_pack_unpack_round_trip(tmp_path, monkeypatch):
    package = tmp_path / "toypkg"
    package.mkdir()
    (package / "__init__.py").write_text("VALUE = 41\n")
    (package / "extra.py").write_text("def answer():\n    return 42\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)  # as in Pyodide
    importlib.import_module("toypkg.extra")
    try:
        job = CompileJob(str(package))
        assert [s.rsplit("/", 1)[1] for s in job.sources] == ["__init__.py", "extra.py"]
        assert job.step(1) == 1 and job.step(5) == 0
        archive = tmp_path / "bytecode.zip"
        assert job.pack(str(archive)) == 2
        shutil.rmtree(package / "__pycache__")
        assert unpack(str(archive)) == 2
        cached = importlib.util.cache_from_source(str(package / "extra.py"))
        data = open(cached, "rb").read()
        assert data[:4] == importlib.util.MAGIC_NUMBER
        assert int.from_bytes(data[4:8], "little") == 0b01  # hash-based, unchecked (PEP 552)
        code = marshal.loads(data[16:])
        namespace = {}
        exec(code, namespace)
        assert namespace["answer"]() == 42
    finally:
        for name in ("toypkg", "toypkg.extra"):
            sys.modules.pop(name, None)


def test_only_modules_under_the_root_are_compiled(tmp_path):
    job = CompileJob(str(tmp_path / "nothing-here"))
    assert job.sources == [] and job.step(10) == 0
