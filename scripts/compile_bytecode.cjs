// Compiles Python sources into the bytecode of the bundled Pyodide's own
// Python (3.8), for scripts/build.py. No other Python 3.8 is at hand at
// build time, so the runtime itself does it: Pyodide 0.17 runs in Node once
// its loaders are served from the files on disk, as js/worker.js serves them
// from downloaded bytes in the browser.
//
//   node scripts/compile_bytecode.cjs <pyodide dist folder> <in.json> <out.json>
//
// in.json: {path: source as base64}; out.json: {path: .pyc as base64}, each
// an unchecked hash-based .pyc (PEP 552), compiled exactly as the import
// system compiles a module (same flags), never executed here.
"use strict";

const fs = require("fs");
const path = require("path");

const [dist, input, output] = process.argv.slice(2).map((arg) => arg && path.resolve(arg));
if (!output) {
  console.error("usage: node compile_bytecode.cjs <pyodide dist> <in.json> <out.json>");
  process.exit(2);
}
const local = (url) => String(url).replace(/^file:\/\//, "");

// What pyodide.js and the file packager expect of a web worker; Emscripten's
// own code sees Node too, and reaches for its require and __dirname.
globalThis.self = globalThis;
globalThis.location = new URL(`file://${dist}/`);
globalThis.require = require;
globalThis.__dirname = dist;
self.importScripts = (...urls) => {
  for (const url of urls) {
    (0, eval)(fs.readFileSync(local(url), "utf8"));
    if (url.endsWith("pyodide.asm.js")) hookModule();
  }
};
globalThis.fetch = async (url) => new Response(fs.readFileSync(local(url)), { status: 200 });

function hookModule() {
  const create = self._createPyodideModule;
  self._createPyodideModule = (Module) => {
    Module.instantiateWasm = (imports, receive) => {
      WebAssembly.instantiate(fs.readFileSync(path.join(dist, "pyodide.asm.wasm")), imports)
        .then(({ instance, module }) => receive(instance, module));
      return {};
    };
    Module.getPreloadedPackage = (url) => {
      const bytes = fs.readFileSync(local(url));
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    };
    return create(Module);
  };
}

const COMPILE = `
import importlib.util, json
from importlib._bootstrap_external import _code_to_hash_pyc
for _i, _path in enumerate(json.loads(open("/in/names.json").read())):
    with open("/in/%d" % _i, "rb") as _f:
        _source = _f.read()
    _code = compile(_source, _path, "exec", dont_inherit=True)
    with open("/out/%d" % _i, "wb") as _f:
        _f.write(_code_to_hash_pyc(_code, importlib.util.source_hash(_source), False))
`;

async function main() {
  const sources = JSON.parse(fs.readFileSync(input, "utf8"));
  const names = Object.keys(sources);
  // Pyodide's start-up prints a line on stdout; the build reads only out.json.
  const log = console.log;
  console.log = () => {};
  self.importScripts(path.join(dist, "pyodide.js"));
  const pyodide = await self.loadPyodide({ indexURL: `${dist}/` });
  console.log = log;
  const FS = pyodide._module.FS;
  FS.mkdirTree("/in");
  FS.mkdirTree("/out");
  FS.writeFile("/in/names.json", JSON.stringify(names));
  names.forEach((name, i) => FS.writeFile(`/in/${i}`, Buffer.from(sources[name], "base64")));
  pyodide.runPython(COMPILE);
  const out = {};
  names.forEach((name, i) => { out[name] = Buffer.from(FS.readFile(`/out/${i}`)).toString("base64"); });
  fs.writeFileSync(output, JSON.stringify(out));
}

main().then(() => process.exit(0), (error) => {
  console.error(error && error.stack ? error.stack : String(error));
  process.exit(1);
});
