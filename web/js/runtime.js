// Boots Pyodide, loads NumPy and imports lab_core from its wheel.
// Returns `call(request) -> reply`, the page's only way to reach Python.
// The runtime's files and the wheel's path come from manifest.json, which
// the build writes next to the pages.
//
// To get live as close as possible to the runtime's own floor, everything
// that does not depend on Pyodide starts at once, in parallel with its boot:
// the wheel download and the NumPy package files (the later loadPackage then
// finds them in the HTTP cache). The wheel is a pure-Python zip, so it goes
// on sys.path as is: no micropip, no dependency resolution.

const WHEEL_PATH = "/lab_core.whl";

function loadScript(src) {
  return new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = src;
    script.onload = () => resolve();
    script.onerror = () => reject(new Error(`no se pudo cargar ${src}`));
    document.head.append(script);
  });
}

class BootError extends Error {
  constructor(step, cause) {
    super(`${step}: ${cause && cause.message ? cause.message : cause}`);
    this.name = "BootError";
    this.step = step;
  }
}

async function step(name, onStep, work) {
  onStep(name);
  try {
    const result = await work();
    performance.mark(`lab:boot:${name}`); // the boot timeline, for scripts/bench.py
    return result;
  } catch (error) {
    throw new BootError(name, error);
  }
}

// Compiled NumPy bytecode from an earlier visit (see lab_core/bytecode.py),
// in Cache Storage under a key that names the runtime's folder (and so its
// version). Optional: without Cache Storage (a plain-http LAN address is
// not a secure context) the lab simply compiles, as the runtime does.
const BYTECODE_CACHE = "attention-lab-bytecode";

async function readBytecode(key) {
  try {
    if (!globalThis.caches) return null;
    const hit = await (await caches.open(BYTECODE_CACHE)).match(key);
    return hit ? new Uint8Array(await hit.arrayBuffer()) : null;
  } catch (error) {
    return null;
  }
}

// After the lab is live: compile the imported NumPy modules a few at a time
// in idle periods (never one long task), then keep the result for next time.
function keepBytecode(pyodide, fs, key) {
  if (!globalThis.caches) return;
  const idle = globalThis.requestIdleCallback || ((f) => setTimeout(f, 50));
  let job;
  const slice = () => {
    try {
      job = job || pyodide.runPython(
        "import os, numpy\nfrom lab_core.bytecode import CompileJob\n" +
        "CompileJob(os.path.dirname(numpy.__file__))");
      if (job.step(6) > 0) {
        idle(slice, { timeout: 1000 });
        return;
      }
      job.pack("/bytecode.zip");
      job.destroy();
      const bytes = fs.readFile("/bytecode.zip");
      caches.open(BYTECODE_CACHE)
        .then((cache) => cache.put(key, new Response(bytes)))
        .then(() => performance.mark("lab:bytecode-saved"))
        .catch((error) => console.warn("bytecode no guardado:", error));
    } catch (error) {
      console.warn("bytecode no compilado:", error);
    }
  };
  idle(slice, { timeout: 1000 });
}

async function fetchBytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`HTTP ${response.status} en ${url}`);
  return new Uint8Array(await response.arrayBuffer());
}

// Package files worth downloading before Pyodide asks for them. (Warming the
// core's wasm and data too was measured slower: on two cores their download
// and decompression compete with the compile of pyodide.asm.js.)
function filesToWarm(runtime) {
  return runtime.files.filter((name) =>
    runtime.packages.some((pkg) => name.startsWith(`${pkg}.`)));
}

// A runtime that booted but has no NumPy: say what, why, and the way out.
function missingNumpy(runtime) {
  const wheel = (runtime.needs && runtime.needs.numpy) || "numpy";
  return new Error(
    `el entorno «${runtime.name}» (Pyodide ${runtime.pyodide}, Python ${runtime.python}) ` +
    `arrancó, pero no encontró NumPy: su rueda ${wheel} no está publicada en ningún ` +
    `registro de paquetes y este servidor no la tiene en ${runtime.indexURL}. ` +
    "Abre la página sin «runtime=current» para usar el entorno incluido " +
    "(Pyodide 0.17.1, con NumPy), o copia esa rueda en wheels-current/ y vuelve a construir.");
}

// onStarted() is called once every download is under way, so the page can
// spend main-thread time (the first paint) while the network works.
// `requested` names a runtime of the manifest; anything else gets the default.
export async function bootRuntime(onStep, onStarted = () => {}, requested = null) {
  const manifest = await step("Leyendo manifest.json", onStep, async () => {
    const response = await fetch("manifest.json"); // preloaded; revalidated by the server
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    return response.json();
  });
  const runtime = manifest.runtimes[requested] || manifest.runtimes[manifest.default_runtime];
  const base = new URL(runtime.indexURL, document.baseURI).href;

  // In parallel with the boot: the wheel, and NumPy's files into the HTTP
  // cache (they are served as immutable), where loadPackage will find them.
  const wheel = fetchBytes(new URL(manifest.wheel, document.baseURI).href);
  const bytecodeKey = base + "bytecode.zip";
  const bytecode = readBytecode(bytecodeKey);
  const warm = filesToWarm(runtime)
    .map((name) => fetch(base + name).then((r) => r.arrayBuffer()).catch(() => null));
  const script = loadScript(base + "pyodide.js");
  onStarted();

  const pyodide = await step(`Arrancando Pyodide ${runtime.pyodide}`, onStep, async () => {
    await script;
    return globalThis.loadPyodide({ indexURL: base });
  });

  await step("Cargando NumPy", onStep, async () => {
    await Promise.all(warm);
    try {
      await pyodide.loadPackage(runtime.packages);
    } catch (error) {
      // Newer Pyodide rejects, older ones only log: the check below decides.
    }
    if (!("numpy" in pyodide.loadedPackages)) throw missingNumpy(runtime);
  });

  // Emscripten's file system: pyodide.FS since 0.18, pyodide._module.FS in 0.17.
  const fs = pyodide.FS || pyodide._module.FS;
  let restored = false;
  const { render, publishRuntime } = await step("Importando lab_core", onStep, async () => {
    fs.writeFile(WHEEL_PATH, await wheel);
    pyodide.runPython(`import sys\nsys.path.insert(0, "${WHEEL_PATH}")`);
    const cached = await bytecode;
    if (cached) {
      try {
        fs.writeFile("/bytecode.zip", cached);
        pyodide.runPython("from lab_core.bytecode import unpack\nunpack('/bytecode.zip')");
        restored = true;
      } catch (error) {
        console.warn("bytecode guardado ilegible; se compila de nuevo:", error);
      }
    }
    pyodide.runPython("from lab_core.browser import render, publish_runtime");
    return {
      render: pyodide.globals.get("render"),
      publishRuntime: pyodide.globals.get("publish_runtime"),
    };
  });

  publishRuntime();
  const versions = JSON.parse(globalThis.py_runtime);
  const info = Object.freeze({
    name: runtime.name,
    // The npm package's version: 0.17.1 reports itself as "0.17.0" internally.
    pyodide: runtime.pyodide,
    python: versions.python,
    numpy: versions.numpy,
  });

  // Python writes its reply on window.py_view_data; we read it back at once.
  function call(request) {
    render(JSON.stringify(request));
    return JSON.parse(globalThis.py_view_data);
  }

  if (!restored) keepBytecode(pyodide, fs, bytecodeKey);
  return { call, info };
}
