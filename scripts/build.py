"""Assemble static/, the deployable site, from four sources.

1. web/                      the page source, copied as is (the pages with
                              their shared chrome put in: scripts/pages.py);
2. the lab_core wheel         built here, a standard py3-none-any wheel, under
                              wheels/<content hash>/ so it can be cached forever;
3. the bundled runtime        only the Pyodide 0.17.1 files the page loads:
                              the core and NumPy (and whatever packages.json
                              says NumPy needs), never the whole 270 MB; the
                              modules the lab imports compiled by that
                              runtime's Python, run in Node (cached in
                              build/bytecode/);
4. the current runtime        Pyodide 314.0.7's core, for ?runtime=current. Its
                              NumPy is on no registry: wheels put in
                              wheels-current/ are copied beside it.

The page's script, js/main.js, is bundled with every module it imports into
one file (esbuild, pinned in package.json; not minified, with a source map
back to web/js/). The module files stay beside it for the tests to import.

It also writes:
- static/manifest.json        where the runtimes and the wheel are, each file
                              with its size, SHA-256 and a name a student
                              understands (the page checks what it downloads
                              and says what failed);
- static/views/<hash>/<lab>/  the views prepared here by the same lab_core in
                              CPython for every state the page's selects can
                              reach (lab_core/prepared.py), so the page paints
                              them before Python is live; the build checks
                              each one against render() and fails if any
                              differs. Each page carries its lab's index of
                              them (<script id="lab-prepared">), so it asks
                              for its first view without waiting for the
                              manifest;
- static/_headers             the HTTP policy (CSP, caching, wasm type) for
                              static hosts that read such a file, from
                              scripts/site_headers.py;
- x.br and x.gz beside each compressible file, for scripts/serve.py (and any
                              host that serves precompressed files). Brotli at
                              quality 11 is slow, so results are cached in
                              build/compressed/ by content hash.

Usage: python scripts/build.py [--out static]
"""
from __future__ import annotations

import argparse
import base64
import gzip
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import brotli

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from lab_core import display, page_text, prepared  # noqa: E402
from lab_core.block_map import block_map  # noqa: E402
from lab_core.views import LABS, get_lab, to_json  # noqa: E402
import runtime_pack  # noqa: E402
from pages import write_pages  # noqa: E402
from site_headers import IMMUTABLE_PREFIXES, PAGE_CSP, headers_file  # noqa: E402

BUNDLED = ROOT / "node_modules" / "@pyodide" / "pyodide"
CORE_FILES = ("pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm", "pyodide.asm.data",
              "packages.json")
# The newest Pyodide: only its core is on npm. Its NumPy wheel is on no
# registry; drop one (or any of its packages) into CURRENT_WHEELS to ship it.
CURRENT = ROOT / "node_modules" / "pyodide"
CURRENT_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip",
                 "pyodide-lock.json")
CURRENT_WHEELS = ROOT / "wheels-current"
ESBUILD = ROOT / "node_modules" / ".bin" / "esbuild"
WHEEL_DATE = "315532800"  # 1980-01-01, the earliest date a zip entry can hold
# What the page asks Pyodide to load; their dependencies are added from
# packages.json. lab_core itself is imported straight from its wheel (a zip
# on sys.path), so micropip and its dependencies are not needed.
PAGE_PACKAGES = ("numpy",)
COMPRESSIBLE = (".js", ".mjs", ".wasm", ".data", ".json", ".html", ".css", ".svg", ".zip")
# What each runtime file is, in words a student understands: the page names
# the file this way when its download fails.
LABELS = {
    "pyodide.js": "el cargador de Python",
    "pyodide.mjs": "el cargador de Python",
    "pyodide.asm.js": "el intérprete de Python (su parte en JavaScript)",
    "pyodide.asm.mjs": "el intérprete de Python (su parte en JavaScript)",
    "pyodide.asm.wasm": "el intérprete de Python",
    "pyodide.asm.data": "la biblioteca estándar de Python",
    "python_stdlib.zip": "la biblioteca estándar de Python",
    "packages.json": "la lista de paquetes de Python",
    "pyodide-lock.json": "la lista de paquetes de Python",
}


def file_entry(path, name=None):
    """A downloadable file as the page checks it: size, digest, label."""
    data = path.read_bytes()
    name = name or path.name
    label = LABELS.get(name)
    if label is None and name.startswith("numpy"):
        label = "NumPy (la biblioteca de cálculo)"
    return labelled({"name": name, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()},
                    label or "un archivo de Python (%s)" % name)


def labelled(entry, label):
    """A file's label as a fault names it: as is, capitalised, after «de»
    («del intérprete»), and its gender («la biblioteca…» llegó incompleta)."""
    return dict(entry, label=label, Label=label[:1].upper() + label[1:],
                of=("del " + label[3:]) if label.startswith("el ") else "de " + label,
                feminine=label.startswith("la "))
CACHE = ROOT / "build" / "compressed"


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


def copy_runtime(out, trimmed=True):
    """Copy the bundled runtime's needed files; return its manifest entry.

    Its two archives (the standard library and NumPy) are repacked with the
    files the lab opens, stored for HTTP compression, the modules it imports
    compiled (scripts/runtime_pack.py, from scripts/runtime_trace.json);
    `trimmed=False` copies them as Pyodide ships them (scripts/trace_runtime.py
    traces on those). The folder is
    named by a hash of its files: a new trace is a new URL, never a stale
    copy from a year-long cache.
    """
    dist = BUNDLED / "dist"
    if not dist.is_dir():
        raise SystemExit("build: %s is missing; run `npm ci` first" % dist)
    version = json.loads((BUNDLED / "package.json").read_text())["version"]
    names = list(CORE_FILES)
    for package in package_closure(dist / "packages.json", PAGE_PACKAGES):
        names += [package + ".js", package + ".data"]
    contents = {name: (dist / name).read_bytes() for name in names}
    kept = {}
    if trimmed:
        traced = load_trace(version)
        # Both archives' modules in one run of the compiler (one boot of Pyodide).
        sources = {}
        for loader, archive in ARCHIVES:
            files = runtime_pack.read(contents[loader].decode("utf-8"), contents[archive])
            sources.update({path: files[path] for path in traced
                            if path.endswith(".py") and path in files})
        compiled = compile_bytecode(sources, version)
        for loader, archive in ARCHIVES:
            text, data, kept[archive] = runtime_pack.repack(
                contents[loader].decode("utf-8"), contents[archive], traced,
                compile_sources=lambda modules: {path: compiled[path] for path in modules})
            contents[loader], contents[archive] = text.encode("utf-8"), data
        missing = sorted(set(traced) - {path for paths in kept.values() for path in paths})
        if missing:
            raise SystemExit("build: the lab opens %s, which the runtime's archives lack "
                             "(a new Pyodide? run `make trace`)" % ", ".join(missing[:5]))
    digest = hashlib.sha256(b"".join(hashlib.sha256(contents[name]).digest()
                                     for name in sorted(names))).hexdigest()[:12]
    folder = "runtime/pyodide-%s-%s/" % (version, digest)
    target = out / folder
    target.mkdir(parents=True)
    for name in names:
        (target / name).write_bytes(contents[name])
    return {
        "name": "bundled",
        "pyodide": version,
        "python": "3.8.2",
        "indexURL": folder,
        "packages": list(PAGE_PACKAGES),
        "files": [file_entry(target / name) for name in sorted(names)],
        "kept": {archive: len(paths) for archive, paths in kept.items()},
    }


def compile_bytecode(sources, version):
    """{path: source bytes} -> {path: .pyc bytes} for the bundled Python 3.8,
    compiled by that runtime itself in Node (scripts/compile_bytecode.cjs:
    a few seconds); cached in build/bytecode/ by the sources and the compiler."""
    key = hashlib.sha256(COMPILER.read_bytes() + version.encode())
    for path in sorted(sources):
        key.update(path.encode() + b"\0" + hashlib.sha256(sources[path]).digest())
    cached = BYTECODE_CACHE / (key.hexdigest()[:24] + ".json")
    if not cached.is_file():
        node = shutil.which("node")
        if node is None:
            raise SystemExit("build: Node is needed to compile the runtime's modules")
        BYTECODE_CACHE.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as tmp:
            given, made = Path(tmp) / "in.json", Path(tmp) / "out.json"
            given.write_text(json.dumps({path: base64.b64encode(data).decode("ascii")
                                         for path, data in sources.items()}))
            done = subprocess.run([node, str(COMPILER), str(BUNDLED / "dist"), str(given), str(made)],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if done.returncode != 0:
                raise SystemExit("build: compiling the runtime's modules failed:\n" + done.stdout)
            shutil.copyfile(made, cached)
    compiled = json.loads(cached.read_text())
    return {path: base64.b64decode(compiled[path]) for path in sources}


COMPILER = ROOT / "scripts" / "compile_bytecode.cjs"
BYTECODE_CACHE = ROOT / "build" / "bytecode"
# Pyodide 0.17's file archives, each with the script that lists its files.
ARCHIVES = (("pyodide.asm.js", "pyodide.asm.data"), ("numpy.js", "numpy.data"))
TRACE = ROOT / "scripts" / "runtime_trace.json"


def load_trace(version):
    """The files the lab opened in Pyodide `version` (scripts/trace_runtime.py)."""
    trace = json.loads(TRACE.read_text(encoding="utf-8"))
    if trace["pyodide"] != version:
        raise SystemExit("build: %s was traced on Pyodide %s, the bundled one is %s: "
                         "run `make trace`" % (TRACE.name, trace["pyodide"], version))
    return trace["files"]


def copy_current_runtime(out):
    """Copy the current Pyodide's core, plus any wheels found in wheels-current/."""
    version = json.loads((CURRENT / "package.json").read_text())["version"]
    folder = "runtime/pyodide-%s/" % version
    target = out / folder
    target.mkdir(parents=True)
    names = list(CURRENT_FILES)
    for name in names:
        shutil.copy2(CURRENT / name, target / name)
    extra = sorted(CURRENT_WHEELS.glob("*.whl")) if CURRENT_WHEELS.is_dir() else []
    for wheel in extra:
        shutil.copy2(wheel, target / wheel.name)
    lock = json.loads((CURRENT / "pyodide-lock.json").read_text())
    return {
        "name": "current",
        "pyodide": version,
        "python": lock["info"]["python"],
        "indexURL": folder,
        "packages": list(PAGE_PACKAGES),
        "files": [file_entry(target / name) for name in sorted(names + [w.name for w in extra])],
        "needs": {pkg: lock["packages"][pkg]["file_name"] for pkg in PAGE_PACKAGES},
    }


def build_wheel(out):
    """Build the lab_core wheel into out/wheels/<hash>/; return its site path."""
    # setuptools reuses build/lib: a module removed from lab_core would ride
    # along in the wheel from there. Start from the sources every time.
    shutil.rmtree(ROOT / "build" / "lib", ignore_errors=True)
    shutil.rmtree(ROOT / "build" / "bdist.linux-x86_64", ignore_errors=True)
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            [sys.executable, "-m", "build", "--wheel", "--no-isolation",
             "--outdir", tmp, str(ROOT)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            # A fixed date for the zip entries: the same sources give the same
            # bytes, so the content-hashed path (cached forever) changes only
            # when lab_core does.
            env=dict(os.environ, SOURCE_DATE_EPOCH=WHEEL_DATE),
        )
        if done.returncode != 0:
            raise SystemExit("build: the wheel did not build:\n" + done.stdout)
        wheels = list(Path(tmp).glob("lab_core-*-py3-none-any.whl"))
        if len(wheels) != 1:
            raise SystemExit("build: expected one py3-none-any wheel, got %s" % wheels)
        digest = hashlib.sha256(wheels[0].read_bytes()).hexdigest()[:12]
        target = out / "wheels" / digest
        target.mkdir(parents=True)
        shutil.copy2(wheels[0], target / wheels[0].name)
        entry = file_entry(target / wheels[0].name)
        entry = labelled(entry, "el código del laboratorio (lab_core)")
        entry.update(path="wheels/%s/%s" % (digest, wheels[0].name))
        return entry


def prepare_views(out):
    """Every selector state's view, in group files under a content-hashed
    folder (cached forever); the build fails if one differs from render()."""
    texts, indexes = {}, {}
    for lab_name in LABS:
        groups, index = prepared.prepare(lab_name)
        count = prepared.verify(lab_name, {name: json.loads(to_json(group))
                                           for name, group in groups.items()})
        index["states"] = count
        indexes[lab_name] = index
        for name, group in groups.items():
            texts["%s/%s.json" % (lab_name, name)] = to_json(group)
    digest = hashlib.sha256("".join(k + texts[k] for k in sorted(texts)).encode()).hexdigest()[:12]
    folder = out / "views" / digest
    for relative, text in texts.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for lab_name, index in indexes.items():
        index["path"] = "views/%s/%s/" % (digest, lab_name)
    return indexes


# Brotli's densest setting for what a visit downloads; the optional runtime
# (?runtime=current, a comparison few visits make) gets quality 9, within
# 15 % of the size at a tenth of the time, the slowest part of a build.
BROTLI_QUALITY = 11
OPTIONAL_BROTLI_QUALITY = 9


def _compress(job):
    """(source path, cache name, quality) -> (cache name, br bytes, gz bytes); runs in a worker."""
    source, name, quality = job
    data = Path(source).read_bytes()
    return (name, brotli.compress(data, quality=quality, lgwin=24),
            gzip.compress(data, 9, mtime=0))


def precompress(out, optional=()):
    """Write x.br and x.gz beside every compressible file, reusing the cache.
    `optional`: folders of out whose files few visits fetch (lighter brotli)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    files, todo = [], []
    for path in sorted(out.rglob("*")):
        if path.suffix in COMPRESSIBLE and path.is_file() and path.stat().st_size > 1024:
            relative = path.relative_to(out).as_posix()
            quality = (OPTIONAL_BROTLI_QUALITY if relative.startswith(tuple(optional))
                       else BROTLI_QUALITY)
            name = hashlib.sha256(path.read_bytes()).hexdigest() + (
                "" if quality == BROTLI_QUALITY else ".q%d" % quality)
            files.append((path, name))
            if not (CACHE / (name + ".br")).is_file():
                todo.append((str(path), name, quality))
    if todo:
        # The largest first: two workers finish together instead of one
        # starting the interpreter's wasm last.
        todo.sort(key=lambda job: -Path(job[0]).stat().st_size)
        with ProcessPoolExecutor() as pool:
            for name, br, gz in pool.map(_compress, todo):
                (CACHE / (name + ".gz")).write_bytes(gz)
                (CACHE / (name + ".br")).write_bytes(br)
    for path, name in files:
        for suffix in (".br", ".gz"):
            shutil.copyfile(CACHE / (name + suffix), str(path) + suffix)
    return len(files), len(todo)


PREPARED_SLOT = '<script type="application/json" id="lab-prepared"></script>'


def write_prepared_indexes(out, indexes):
    """Each page carries its own lab's index of prepared views (the page reads
    it as its script starts; see web/partials/head-assets.html)."""
    for page in sorted(out.glob("*.html")):
        text = page.read_text(encoding="utf-8")
        lab = re.search(r'<body data-lab="([\w-]+)"', text)
        if not lab or lab.group(1) not in indexes or text.count(PREPARED_SLOT) != 1:
            raise SystemExit("build: %s has no single slot for its prepared views" % page.name)
        data = json.dumps(indexes[lab.group(1)], ensure_ascii=False, separators=(",", ":"))
        filled = PREPARED_SLOT.replace("></", ">%s</" % data.replace("</", "<\\/"))
        page.write_text(text.replace(PREPARED_SLOT, filled), encoding="utf-8")


TEXT_SLOT = '<script type="application/json" id="lab-text"></script>'


def write_page_text(out):
    """Each page carries the words its script says (lab_core/page_text.py)."""
    data = json.dumps(page_text.TEXT, ensure_ascii=False, separators=(",", ":"))
    for page in sorted(out.glob("*.html")):
        text = page.read_text(encoding="utf-8")
        if text.count(TEXT_SLOT) != 1:
            raise SystemExit("build: %s has no single slot for the page's words" % page.name)
        filled = TEXT_SLOT.replace("></", ">%s</" % data.replace("</", "<\\/"))
        page.write_text(text.replace(TEXT_SLOT, filled), encoding="utf-8")


def check_policy(out):
    """Each page carries the site's policy as a meta tag, exactly (a static
    host that sends no headers still applies it)."""
    meta = '<meta http-equiv="Content-Security-Policy" content="%s">' % PAGE_CSP
    for page in sorted(out.glob("*.html")):
        if meta not in page.read_text(encoding="utf-8"):
            raise SystemExit("build: %s lacks the policy of scripts/site_headers.py" % page.name)
    (out / "_headers").write_text(headers_file(IMMUTABLE_PREFIXES), encoding="utf-8")


def bundle_script(out, entry="js/main.js"):
    """Put the page's script and every module it imports into one file.

    As fifteen modules, preloaded, they arrived in one round trip, but each
    was a request the server answered and the renderer compiled on its own
    before the script could run; as one file the first view paints about 30
    to 60 ms sooner on this machine (README, Performance). The syntax is
    left as written (no target), the Spanish text as UTF-8, and the source
    map carries the commented sources for the browser's developer tools.
    """
    if not ESBUILD.is_file():
        raise SystemExit("build: %s is missing: run `npm ci` (or `make setup`)" % ESBUILD)
    path = out / entry
    subprocess.run([str(ESBUILD), entry, "--bundle", "--format=esm", "--charset=utf8",
                    "--sourcemap", "--log-level=warning", "--allow-overwrite",
                    "--outfile=%s" % entry], check=True, cwd=out)
    bundled = path.read_text(encoding="utf-8")
    if re.search(r"^\s*(import\s*[\w{*\"']|export\s)", bundled, re.M):
        raise SystemExit("build: %s still imports or exports after bundling" % entry)


# What the service worker stores as it installs: the pages and what they
# load before Python. The runtime and the wheel are handed over by the page
# once live, from the HTTP cache (js/offline.js): stored here they would be
# downloaded a second time while the page downloads them.
SHELL = ("./", "index.html", "bloque.html", "modelo.html", "css/lab.css", "js/main.js", "js/watchdog.js",
         "js/worker.js", "manifest.json")
SW_SLOT = "const BUILD = null;"


def write_service_worker(out):
    """Put this build's version and shell into sw.js: a new build is a new
    worker, which replaces the older builds' caches. The version is a hash
    of every file the site serves, so any change to the site makes one."""
    path = out / "sw.js"
    text = path.read_text(encoding="utf-8")
    if text.count(SW_SLOT) != 1:
        raise SystemExit("build: sw.js has no single slot for the build's version")
    digest = hashlib.sha256()
    for file in sorted(out.rglob("*")):
        if file.is_file() and file != path and not file.name.endswith((".br", ".gz")):
            digest.update(file.relative_to(out).as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(file.read_bytes()).digest())
    for name in SHELL:
        if name != "./" and not (out / name).is_file():
            raise SystemExit("build: sw.js would keep %s, which the site does not have" % name)
    build = {"version": digest.hexdigest()[:12], "shell": list(SHELL)}
    path.write_text(text.replace(SW_SLOT, "const BUILD = %s;" % json.dumps(build)),
                    encoding="utf-8")
    return build["version"]


def check_preloads(out):
    """Every file the pages preload must exist in the site (paths can drift)."""
    for page in sorted(out.glob("*.html")):
        for href in re.findall(r'<link rel="(?:preload|modulepreload)" href="([^"]+)"',
                               page.read_text(encoding="utf-8")):
            if not (out / href).is_file():
                raise SystemExit("build: %s preloads %s, which the site does not have"
                                 % (page.name, href))


def build(out, trimmed=True):
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(ROOT / "web", out)
    titles = {name: get_lab(name).titles for name in LABS}
    write_pages(ROOT / "web", out, {name: get_lab(name).panel_reads() for name in LABS},
                {name: block_map(name, titles) for name in LABS})
    bundle_script(out)
    manifest = {
        "wheel": build_wheel(out),
        "default_runtime": "bundled",
        "runtimes": {"bundled": copy_runtime(out, trimmed), "current": copy_current_runtime(out)},
    }
    for name, runtime in manifest["runtimes"].items():
        runtime["size_text"] = download_text(out, runtime, manifest["wheel"], name != "bundled")
    indexes = prepare_views(out)
    write_prepared_indexes(out, indexes)
    write_page_text(out)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n",
                                       encoding="utf-8")
    check_policy(out)
    check_preloads(out)
    manifest["service_worker"] = write_service_worker(out)
    manifest["compressed"] = precompress(out, [manifest["runtimes"]["current"]["indexURL"]])
    return manifest, indexes


def download_text(out, runtime, wheel, optional):
    """What the loading line says a first visit downloads: the bytes that
    cross the wire (the brotli copies the host serves, else the file), not
    the 32 MB they unpack to, which a reader on a data plan would take for
    the cost. The page formats no number."""
    folder = out / runtime["indexURL"]
    precompress(folder, ("",) if optional else ())  # cached: the site's pass reuses them
    paths = [folder / f["name"] for f in runtime["files"]] + [out / wheel["path"]]
    wire = sum((p.with_name(p.name + ".br") if p.with_name(p.name + ".br").is_file() else p)
               .stat().st_size for p in paths)
    return display.fmt(wire / 1e6, 1) + " MB"


def site_bytes(out):
    """Total size of the site's own files, without the precompressed copies."""
    return sum(f.stat().st_size for f in out.rglob("*")
               if f.is_file() and not f.name.endswith((".br", ".gz")))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "static")
    parser.add_argument("--untrimmed", action="store_true",
                        help="ship Pyodide's archives whole (for scripts/trace_runtime.py)")
    args = parser.parse_args()
    out = args.out.resolve()
    manifest, indexes = build(out, trimmed=not args.untrimmed)
    files, fresh = manifest["compressed"]
    runtimes = ", ".join("%s %s (%d files)" % (name, r["pyodide"], len(r["files"]))
                         for name, r in manifest["runtimes"].items())
    views = ", ".join("%s %d states" % (lab, index["states"])
                      for lab, index in indexes.items())
    print("built %s: %s; runtimes: %s; prepared views: %s; %.1f MB; %d files precompressed "
          "(%d new)" % (args.out, manifest["wheel"]["path"], runtimes, views,
                        site_bytes(out) / 1e6, files, fresh))


if __name__ == "__main__":
    main()
