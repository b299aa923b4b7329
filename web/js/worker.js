// Python's home: a module Web Worker that boots Pyodide, NumPy and lab_core,
// then answers the page's requests. Running here, Python's start-up (a
// second or more of unpacking, linking and importing) never blocks the page:
// the reader can scroll, read and use the prepared view meanwhile.
//
// Messages in:  {type: "boot", runtime, base, wheel, files: {url: ArrayBuffer}}
//               {type: "files", files, last}      files checked since (the wasm;
//                                                 last: the packages' and lab_core's:
//                                                 Python starts meanwhile, NumPy
//                                                 waits for them)
//               {type: "stream", url}             the wasm's bytes as they arrive,
//               {type: "chunk", url, bytes}       unchecked: compiled meanwhile,
//               {type: "streamed", url}           instantiated only once "files"
//                                                 brings it checked
//               {type: "call", id, request}          request: JSON text
// Messages out: {type: "step", step}                 boot progress
//               {type: "ready", python, numpy}
//               {type: "reply", id, reply, table}    reply: JSON text
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
    return create(Module);
  };
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

async function boot({ runtime, base, wheel, files: given }) {
  files = new Map(Object.entries(given));
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
