// The page's only path to Python: downloads the runtime (download.js), starts
// the worker that hosts it (worker.js), follows its boot, and then carries
// requests to lab_core and replies back.
//
// bootPython() keeps what it downloaded in `have` (url -> ArrayBuffer), so a
// retry after a fault fetches only what is missing. Every way a boot can fail
// ends in a LoadError, within STALL_MS of the last sign of progress.

import { LoadError, download, stallTimer } from "./download.js";
import { say } from "./text.js";

const WORKER_URL = new URL("./worker.js", import.meta.url);
const WORKER_FILE = { url: WORKER_URL.href, label: say("file.worker"), Label: say("file.worker.cap"),
  of: say("file.worker.of") };

// The files of a runtime, and the lab_core wheel, as download.js wants them.
function runtimeFiles(manifest, runtime) {
  const base = new URL(runtime.indexURL, document.baseURI).href;
  // The bundled runtime's folder and the wheel's are named by their content.
  const immutable = runtime.name === "bundled";
  const files = runtime.files.map((file) => ({ ...file, url: base + file.name, immutable }));
  const wheel = { ...manifest.wheel, url: new URL(manifest.wheel.path, document.baseURI).href,
    immutable: true };
  return { base, files: [...files, wheel], wheel };
}

export function pickRuntime(manifest, requested) {
  const known = Object.prototype.hasOwnProperty.call(manifest.runtimes, requested);
  return manifest.runtimes[known ? requested : manifest.default_runtime];
}

class Python {
  constructor(worker, info) {
    this.worker = worker;
    this.info = info;
    this.waiting = new Map();
    this.next = 1;
    this.onFault = () => {};
    worker.onmessage = (event) => this.receive(event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      this.fail(new LoadError("runtime", null, event.message || say("detail.worker_stopped")));
    };
  }

  receive(message) {
    if (message.type === "violation") reportViolation(message);
    if (message.type !== "reply") return;
    const pending = this.waiting.get(message.id);
    if (!pending) return;
    this.waiting.delete(message.id);
    if (message.reply === null) pending.reject(new LoadError("runtime", null, message.failure));
    else pending.resolve({ text: message.reply, table: message.table, python: message.python });
  }

  // request (an object) -> {text, table}: the reply envelope as JSON text,
  // and the article's py_table_data when Python published one.
  call(request) {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ type: "call", id, request: JSON.stringify(request) });
    });
  }

  fail(error) {
    for (const pending of this.waiting.values()) pending.reject(error);
    this.waiting.clear();
    this.onFault(error);
  }

  stop() {
    this.worker.terminate();
  }
}

function reportViolation(message) {
  console.error(`Content-Security-Policy (worker): ${message.directive} blocked ${message.blocked}`);
}

// The worker that will host Python, started before the runtime's files are
// in, so that its script loads, and the interpreter's wasm compiles as it
// streams (never executed before the page has checked it), while the rest
// arrives. onStep(name): "python" | "numpy" | "lab". `ready` resolves with a
// Python once lab_core is imported, or rejects with the boot's LoadError.
class Boot {
  constructor(runtime, base, wheel, onStep) {
    this.runtime = runtime;
    this.base = base;
    this.wheel = wheel;
    this.onStep = onStep;
    this.given = new Set();
    this.over = false;
    this.step = "python";
    this.watching = false;
    this.ready = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.ready.catch(() => {}); // bootPython races it with the downloads
    // While files are still arriving, the download's own timer watches the
    // boot (a file that stalls is named as such); this one from then on.
    this.stall = stallTimer(() => this.quit(new LoadError("timeout", null,
      say("detail.step_stalled", { step: this.step }), { step: this.step })));
    this.stall.stop();
    try {
      this.worker = new Worker(WORKER_URL, { type: "module" });
    } catch (error) {
      this.quit(new LoadError("script", WORKER_FILE, error.message));
      return;
    }
    this.worker.onerror = (event) => {
      event.preventDefault();
      // A worker whose script did not load reports an error without a message.
      this.quit(event.message
        ? new LoadError("runtime", null, event.message, { step: this.step })
        : new LoadError("script", WORKER_FILE, say("detail.worker_script")));
    };
    this.worker.onmessage = (event) => this.receive(event.data);
  }

  receive(message) {
    if (this.watching) this.stall.poke();
    if (message.type === "violation") {
      reportViolation(message);
    } else if (message.type === "step") {
      this.step = message.step;
      this.onStep(this.step);
    } else if (message.type === "error") {
      this.quit(new LoadError(message.kind, null, message.message, { step: message.step }));
    } else if (message.type === "ready") {
      this.stall.stop();
      const python = new Python(this.worker, Object.freeze({
        name: this.runtime.name,
        // The npm package's version: 0.17.1 reports itself as "0.17.0".
        pyodide: this.runtime.pyodide,
        python: message.python,
        numpy: message.numpy,
      }));
      this.resolve(python);
    }
  }

  quit(error) {
    if (this.over) return;
    this.over = true;
    this.stall.stop();
    if (this.worker) this.worker.terminate();
    this.reject(error);
  }

  post(message, transfer = []) {
    if (!this.over) this.worker.postMessage(message, transfer);
  }

  // The files of `have` not handed over yet (copies: the page keeps its own
  // until Python is live, for a retry).
  handOver(have) {
    const files = {};
    for (const [url, buffer] of have) if (!this.given.has(url)) files[url] = buffer;
    for (const url of Object.keys(files)) this.given.add(url);
    return files;
  }

  // A download whose bytes the worker compiles as they come: the bundled
  // runtime's wasm. A new stream replaces an earlier one (a retried cut).
  streamer(url) {
    return {
      start: () => this.post({ type: "stream", url }),
      chunk: (bytes) => this.post({ type: "chunk", url, bytes }),
      end: () => this.post({ type: "streamed", url }),
    };
  }

  // Python starts from the interpreter's files in `have`; the others follow
  // with give(), and `later` resolves when the last is in (or rejects with
  // its download's fault).
  start(have, later) {
    this.post({ type: "boot", runtime: this.runtime, base: this.base, wheel: this.wheel.url,
      files: this.handOver(have) });
    later.then(() => {
      if (this.over) return;
      this.post({ type: "files", files: this.handOver(have), last: true });
      this.watching = true;
      this.stall.poke();
    }, (error) => this.quit(error));
    return this.ready;
  }

  give(have) {
    this.post({ type: "files", files: this.handOver(have), last: false });
  }
}

// Downloads still under way when a boot failed: a retry waits for them
// rather than starting them again. url -> {job, controller}
const inflight = new Map();
// The attempt under way: bytes from any download, started by it or by an
// earlier one, count as its progress.
let attempt = null;

function report(n) {
  if (attempt) attempt.count(n);
}

// A connection cut mid-file is tried once more at once (school networks drop
// long downloads); any other fault, or a second cut, is the reader's to see.
// `stream` (Boot.streamer) is handed the bytes as they arrive.
function fetchFile(file, suspect, have, stream = null) {
  const controller = new AbortController();
  const once = () => {
    if (stream) stream.start();
    return download(file, { fresh: suspect.has(file.url), onBytes: report, stall: controller,
      onChunk: stream ? stream.chunk : undefined, onEnd: stream ? stream.end : undefined });
  };
  const job = once()
    .catch((error) => {
      if (error.kind !== "network" || controller.signal.aborted) throw error;
      return once();
    })
    .then((buffer) => {
      have.set(file.url, buffer);
      suspect.delete(file.url);
    }, (error) => {
      if (error.kind === "corrupt") suspect.add(file.url);
      throw error;
    })
    .finally(() => inflight.delete(file.url));
  inflight.set(file.url, { job, controller });
  return job;
}

// Download what is missing, and boot meanwhile: the worker starts with the
// downloads, Python once the interpreter's files are in, NumPy once its are.
// `have` (url -> ArrayBuffer) and `suspect` (urls that arrived corrupt)
// persist across retries. One stall timer watches the whole step: any byte
// of any file is progress; when none arrives for STALL_MS, every download
// still waiting is stopped.
export async function bootPython({ manifest, runtime, have, suspect, onBytes, onStep }) {
  const { base, files, wheel } = runtimeFiles(manifest, runtime);
  const total = files.reduce((sum, file) => sum + file.size, 0);
  let done = files.filter((file) => have.has(file.url)).reduce((sum, file) => sum + file.size, 0);
  onBytes(done, total);
  onStep("download");
  const timer = stallTimer(() => {
    for (const { controller } of inflight.values()) controller.abort();
  });
  const mine = {
    count(n) {
      timer.poke();
      onBytes((done += n), total);
    },
    stop: () => timer.stop(),
  };
  // This attempt's timer watches every download now, an earlier attempt's
  // too: the earlier one's must not stop them (its worker may have failed
  // while its downloads went on).
  if (attempt) attempt.stop();
  attempt = mine;
  const boot = new Boot(runtime, base, wheel, onStep);
  // The bundled runtime's wasm is compiled in the worker as it arrives, and
  // instantiated once checked; a download an earlier attempt started is
  // handed over whole, when it is in.
  const wasm = runtime.name === "bundled" ? files.find((file) => file.url === `${base}pyodide.asm.wasm`) : null;
  const job = (file) => (have.has(file.url) ? Promise.resolve()
    : inflight.has(file.url) ? inflight.get(file.url).job
      : fetchFile(file, suspect, have, file === wasm ? boot.streamer(file.url) : null));
  // The interpreter's files first, alone: Python starts while the packages'
  // files and lab_core are on their way. Fetched beside them, NumPy's
  // 8,7 MB shared the line (and, on localhost, the decoding) with the
  // interpreter's, and Python started later.
  const packaged = (file) => file === wheel ||
    runtime.packages.some((name) => file.url.startsWith(`${base}${name}.`));
  const first = Promise.all(files.filter((file) => !packaged(file) && file !== wasm).map(job));
  const compiling = wasm ? job(wasm) : Promise.resolve();
  const rest = Promise.all([first, compiling]).then(() => Promise.all(files.filter(packaged).map(job)));
  const all = Promise.all([first, compiling, rest]).finally(() => {
    timer.stop();
    if (attempt === mine) attempt = null;
  });
  // Any file's fault, or the worker's, ends the step at once (the other
  // downloads go on, for a retry to find).
  try {
    await new Promise((resolve, reject) => {
      first.then(resolve, reject);
      all.catch(reject);
      boot.ready.catch(reject);
    });
  } catch (error) {
    boot.quit(error);
    throw error;
  }
  onStep("worker");
  compiling.then(() => boot.give(have), () => {});
  return boot.start(have, all.then(() => onBytes(total, total)));
}
