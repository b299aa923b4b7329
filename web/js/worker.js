// Python's home: a module Web Worker that boots Pyodide, NumPy and lab_core,
// then answers the page's requests. Running here, Python's start-up (about a
// second of compiling and unpacking) never blocks the page: the reader can
// scroll, read and use the prepared view meanwhile.
//
// Messages in:  {type: "boot", runtime, base, wheel, files: {url: ArrayBuffer},
//                bytecode}                         an earlier visit's compiled
//                                                 modules (bytecode.js), or null
//               {type: "files", files, last}      files checked since (the wasm;
//                                                 last: the packages' and lab_core's:
//                                                 Python starts meanwhile, NumPy
//                                                 waits for them)
//               {type: "stream", url}             the wasm's bytes as they arrive,
//               {type: "chunk", url, bytes}       unchecked: compiled meanwhile,
//               {type: "streamed", url}           instantiated only once "files"
//                                                 brings it checked
//               {type: "call", id, request}          request: JSON text
//               {type: "bytecode"}                   compile the loaded modules
// Messages out: {type: "step", step}                 boot progress
//               {type: "ready", python, numpy}
//               {type: "reply", id, reply, table}    reply: JSON text
//               {type: "bytecode", buffer}           ArrayBuffer, or null
//               {type: "error", step, kind, message} a boot step failed
//
// The page downloads the runtime's files itself (with progress, checks and
// retry: see download.js) and hands them over, each once checked; the wasm's
// bytes also as they arrive, so that it compiles while the rest downloads.
// Pyodide 0.17 then finds them through its own loaders, served here from
// those bytes: importScripts (the JS files), fetch (packages.json) and
// Emscripten's hooks instantiateWasm (the wasm) and getPreloadedPackage (the
// .data archives). Nothing is fetched twice.
//
// The article writes `js.window.py_table_data = json.dumps(...)`. In a
// worker `js` is this global scope, so once the runtime has booted (its
// loaders must not mistake the worker for a page), `window` is defined as an
// alias of it; the page copies py_view_data and py_table_data onto its own
// window.

let render = null;
let files = new Map();
let bytecode = null; // an earlier visit's compiled modules (bytecode.js), or null
let filesIn; // resolves when the last "files" message has brought the rest
const allFiles = new Promise((resolve) => { filesIn = resolve; });
let arrivedIn = () => {}; // called when a "files" message brings more
let streamed = null; // {url, send(act), module: Promise<WebAssembly.Module | null>}
let failBoot = () => {}; // ends the boot with an error message to the page

// The file at url, once the page has handed it over (checked).
async function arrived(url) {
  while (!files.has(url)) await new Promise((resolve) => { arrivedIn = resolve; });
  return files.get(url);
}

// Compiles the bytes of a download as they arrive (WebAssembly's streaming
// compiler); resolves with null when the stream breaks or does not compile.
function startStream(url) {
  if (streamed) streamed.send((c) => c.error(new Error("replaced")));
  let controller;
  const body = new ReadableStream({ start(c) { controller = c; } });
  const response = new Response(body, { headers: { "Content-Type": "application/wasm" } });
  // A stream already closed or broken refuses more: the compile's result
  // says what came of it.
  const send = (act) => {
    try {
      act(controller);
    } catch (error) {
      // ignored: see above
    }
  };
  streamed = { url, send, module: WebAssembly.compileStreaming(response).catch(() => null) };
}

// Emscripten's hook for the main module: compiled from the stream when there
// was one (from the checked bytes otherwise), instantiated once the page has
// checked it (its size, and its SHA-256 wherever the browser can compute one:
// see download.js sha256).
function instantiateWasm(url, imports, receive) {
  (async () => {
    const bytes = await arrived(url);
    const module = (streamed && streamed.url === url && await streamed.module) ||
      await WebAssembly.compile(bytes);
    const instance = await WebAssembly.instantiate(module, imports);
    receive(instance, module);
  })().catch((error) => failBoot(error));
  return {};
}

function post(message) {
  self.postMessage(message);
}

// A preloaded file's bytes, by absolute URL.
function preloaded(url) {
  return files.get(new URL(url, self.location.href).href);
}

function serveFromPreloaded() {
  // Pyodide 0.17 loads its scripts with importScripts in a worker; a module
  // worker has none, so run the preloaded text as a classic script would
  // (indirect eval: global scope). The policy of this worker's script allows
  // eval because Pyodide 0.17 needs it anyway (see scripts/site_headers.py).
  self.importScripts = (...urls) => {
    for (const url of urls) {
      const bytes = preloaded(url);
      if (!bytes) throw new Error(`file not preloaded: ${url}`);
      (0, eval)(new TextDecoder().decode(bytes));
      if (url.endsWith("pyodide.asm.js")) hookModule(url);
    }
  };
  const networkFetch = self.fetch.bind(self);
  self.fetch = (resource, init) => {
    const url = typeof resource === "string" ? resource : resource.url;
    const bytes = preloaded(url);
    if (!bytes) return networkFetch(resource, init);
    const type = url.endsWith(".wasm") ? "application/wasm" : "application/json";
    return Promise.resolve(new Response(bytes, { status: 200, headers: { "Content-Type": type } }));
  };
}

// Emscripten's file packager asks Module.getPreloadedPackage(url) before it
// downloads a .data archive; Pyodide builds Module inside loadPyodide, so the
// hook goes in when the module factory is defined.
function hookModule(scriptUrl) {
  const create = self._createPyodideModule;
  self._createPyodideModule = (Module) => {
    Module.instantiateWasm = (imports, receive) =>
      instantiateWasm(new URL("pyodide.asm.wasm", scriptUrl).href, imports, receive);
    Module.getPreloadedPackage = (url) => {
      const bytes = preloaded(url);
      return bytes ? bytes.slice(0) : null;
    };
    // Before Python starts: an earlier visit's bytecode into __pycache__.
    if (bytecode) Module.preRun = [].concat(Module.preRun || [], () => writeBytecode(Module.FS));
    return create(Module);
  };
}

// The bytecode file (made by BYTECODE below): a 4-byte little-endian length,
// a JSON list of [path, size], then the files one after another.
function writeBytecode(FS) {
  try {
    const view = new DataView(bytecode);
    const length = view.getUint32(0, true);
    const list = JSON.parse(new TextDecoder().decode(new Uint8Array(bytecode, 4, length)));
    let offset = 4 + length;
    for (const [path, size] of list) {
      if (!path.startsWith("/lib/") || !path.includes("/__pycache__/")) throw new Error(path);
      FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
      FS.writeFile(path, new Uint8Array(bytecode, offset, size));
      offset += size;
    }
  } catch (error) {
    // A file that does not parse: Python compiles from source, as without it.
  }
  bytecode = null;
}

// Compiles, a few modules per call, every module of the standard library and
// NumPy loaded so far, as the import system would (same flags), into
// unchecked-hash .pyc (PEP 552: never compared with the source, which is the
// runtime's own and named by its content hash); then packs them as one file.
const BYTECODE = `
import importlib.util, json, sys
from importlib._bootstrap_external import _code_to_hash_pyc
_lab_todo = sorted({m.__file__ for m in list(sys.modules.values())
                    if isinstance(getattr(m, "__file__", None), str)
                    and m.__file__.startswith("/lib/") and m.__file__.endswith(".py")})
_lab_pycs = []
def _lab_compile(n):
    for path in _lab_todo[:n]:
        with open(path, "rb") as f:
            source = f.read()
        code = compile(source, path, "exec", dont_inherit=True)
        _lab_pycs.append((importlib.util.cache_from_source(path),
                          bytes(_code_to_hash_pyc(code, importlib.util.source_hash(source), False))))
    del _lab_todo[:n]
    if _lab_todo:
        return None
    head = json.dumps([[path, len(data)] for path, data in _lab_pycs]).encode()
    return len(head).to_bytes(4, "little") + head + b"".join(data for _, data in _lab_pycs)
`;

let compiling = null;

// Answers {type: "bytecode"} with {type: "bytecode", buffer}, or buffer
// null on failure; a task per few modules, so requests are answered between.
function compileBytecode(pyodide) {
  if (compiling) return;
  compiling = true;
  try {
    pyodide.runPython(BYTECODE);
  } catch (error) {
    post({ type: "bytecode", buffer: null });
    return;
  }
  const step = pyodide.globals.get("_lab_compile");
  const next = () => {
    let packed;
    try {
      packed = step(2); // a few ms: a request waits at most that long
    } catch (error) {
      post({ type: "bytecode", buffer: null });
      return;
    }
    if (packed === undefined || packed === null) {
      setTimeout(next, 0);
      return;
    }
    const bytes = packed.toJs();
    packed.destroy();
    pyodide.runPython("del _lab_pycs[:], _lab_todo[:]");
    const buffer = bytes.byteLength === bytes.buffer.byteLength ? bytes.buffer : bytes.slice().buffer;
    self.postMessage({ type: "bytecode", buffer }, [buffer]);
  };
  setTimeout(next, 0);
}

async function step(name, work) {
  post({ type: "step", step: name });
  try {
    return await work();
  } catch (error) {
    throw Object.assign(new Error(error && error.message ? error.message : String(error)),
      { step: name, kind: (error && error.kind) || "runtime" });
  }
}

async function bootBundled(base) {
  serveFromPreloaded();
  self.importScripts(`${base}pyodide.js`);
  return step("python", () => self.loadPyodide({ indexURL: base }));
}

async function bootCurrent(base) {
  // Pyodide 0.2x+ ships as an ES module and loads its files itself.
  const module = await step("python", () => import(`${base}pyodide.mjs`));
  return step("python", () => module.loadPyodide({ indexURL: base }));
}

async function boot({ runtime, base, wheel, files: given, bytecode: compiled }) {
  files = new Map(Object.entries(given));
  bytecode = compiled || null;
  const pyodide = runtime.name === "bundled" ? await bootBundled(base) : await bootCurrent(base);
  await allFiles;
  await step("numpy", async () => {
    try {
      await pyodide.loadPackage(runtime.packages);
    } catch (error) {
      // Newer Pyodide rejects, older ones only log: the check below decides.
    }
    if (!("numpy" in pyodide.loadedPackages)) {
      throw Object.assign(new Error("numpy is not available"), { kind: "missing-numpy" });
    }
  });
  await step("lab", () => {
    self.window = self;
    // lab_core is a pure-Python wheel (a zip): it goes on sys.path as is.
    const fs = pyodide.FS || pyodide._module.FS;
    fs.writeFile("/lab_core.whl", new Uint8Array(preloaded(wheel)));
    pyodide.runPython('import sys\nsys.path.insert(0, "/lab_core.whl")\n' +
      "from lab_core.browser import render, publish_runtime");
    render = pyodide.globals.get("render");
    pyodide.globals.get("publish_runtime")();
  });
  files = new Map(); // Pyodide has copied what it needs
  // For the browser's developer tools and scripts/trace_runtime.py, which
  // ask this Python which files it has opened.
  self.pyodide = pyodide;
  const versions = JSON.parse(self.py_runtime);
  post({ type: "ready", python: versions.python, numpy: versions.numpy });
}

function call({ id, request }) {
  self.py_table_data = undefined;
  const start = performance.now();
  render(request);
  post({ type: "reply", id, reply: self.py_view_data, table: self.py_table_data,
    python: performance.now() - start });
}

// The worker's own policy (see scripts/site_headers.py) is reported to the
// page, which logs any violation: none is expected.
self.addEventListener("securitypolicyviolation", (event) => {
  post({ type: "violation", directive: event.violatedDirective, blocked: event.blockedURI });
});

self.onmessage = (event) => {
  const message = event.data;
  if (message.type === "boot") {
    let failed = false;
    failBoot = (error) => {
      if (failed) return;
      failed = true;
      post({
        type: "error", step: error.step || "python", kind: error.kind || "runtime",
        message: error.message || String(error),
      });
    };
    boot(message).catch(failBoot);
  } else if (message.type === "files") {
    for (const [url, bytes] of Object.entries(message.files)) files.set(url, bytes);
    arrivedIn();
    if (message.last) filesIn();
  } else if (message.type === "stream") {
    startStream(message.url);
  } else if (message.type === "chunk") {
    if (streamed && streamed.url === message.url) streamed.send((c) => c.enqueue(message.bytes));
  } else if (message.type === "streamed") {
    if (streamed && streamed.url === message.url) streamed.send((c) => c.close());
  } else if (message.type === "bytecode") {
    if (self.pyodide) compileBytecode(self.pyodide);
  } else if (message.type === "call") {
    try {
      call(message);
    } catch (error) {
      post({ type: "reply", id: message.id, reply: null, failure: String(error.message || error) });
    }
  } else {
    throw new Error(`unknown message: ${message.type}`);
  }
};
