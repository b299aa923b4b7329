"""Assemble static/, the deployable site, from three sources.

1. web/                      the page source, copied as is;
2. the lab_core wheel         built here, a standard py3-none-any wheel;
3. the bundled runtime        only the Pyodide 0.17.1 files the page loads:
                              the core, NumPy, micropip and their dependencies,
                              read from packages.json (never the whole 270 MB).

It also writes static/manifest.json, which tells the page where the runtime
and the wheel are. Usage: python scripts/build.py [--out static]
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = ROOT / "node_modules" / "@pyodide" / "pyodide"
CORE_FILES = ("pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm", "pyodide.asm.data",
              "packages.json")
# What the page asks Pyodide to load; their dependencies are added from
# packages.json.
PAGE_PACKAGES = ("numpy", "micropip")


def package_closure(packages_json, wanted):
    """The wanted packages plus everything they depend on, sorted."""
    depends = json.loads(packages_json.read_text())["dependencies"]
    seen, todo = set(), list(wanted)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        if name not in depends:
            raise SystemExit("build: %s is not in %s" % (name, packages_json))
        seen.add(name)
        todo.extend(depends[name])
    return sorted(seen)


def copy_runtime(out):
    """Copy the bundled runtime's needed files; return its manifest entry."""
    dist = BUNDLED / "dist"
    if not dist.is_dir():
        raise SystemExit("build: %s is missing; run `npm ci` first" % dist)
    version = json.loads((BUNDLED / "package.json").read_text())["version"]
    folder = "runtime/pyodide-%s/" % version
    target = out / folder
    target.mkdir(parents=True)
    names = list(CORE_FILES)
    for package in package_closure(dist / "packages.json", PAGE_PACKAGES):
        names += [package + ".js", package + ".data"]
    for name in names:
        shutil.copy2(dist / name, target / name)
    return {
        "name": "bundled",
        "pyodide": version,
        "indexURL": folder,
        "packages": list(PAGE_PACKAGES),
        "files": sorted(names),
    }


def build_wheel(out):
    """Build the lab_core wheel into out/wheels; return its path in the site."""
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            [sys.executable, "-m", "build", "--wheel", "--no-isolation",
             "--outdir", tmp, str(ROOT)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        if done.returncode != 0:
            raise SystemExit("build: the wheel did not build:\n" + done.stdout)
        wheels = list(Path(tmp).glob("lab_core-*-py3-none-any.whl"))
        if len(wheels) != 1:
            raise SystemExit("build: expected one py3-none-any wheel, got %s" % wheels)
        (out / "wheels").mkdir()
        shutil.copy2(wheels[0], out / "wheels" / wheels[0].name)
        return "wheels/" + wheels[0].name


def build(out):
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(ROOT / "web", out)
    manifest = {"wheel": build_wheel(out), "runtime": copy_runtime(out)}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "static")
    args = parser.parse_args()
    manifest = build(args.out.resolve())
    size = sum(f.stat().st_size for f in args.out.rglob("*") if f.is_file())
    print("built %s: %s, runtime %s (%d files), %.1f MB"
          % (args.out, manifest["wheel"], manifest["runtime"]["pyodide"],
             len(manifest["runtime"]["files"]), size / 1e6))


if __name__ == "__main__":
    main()
