// Python's compiled modules, kept between visits. Pyodide 0.17 ships the
// standard library and NumPy as source, so every boot compiles a few hundred
// modules (about a second, and the same every time). Once the page is live,
// the worker compiles them once more in small steps, between requests, into
// bytecode that needs no check against its source (PEP 552, unchecked hash
// .pyc) and the page keeps it in the browser's Cache Storage, keyed by the
// runtime's content-named folder; the next visit hands it to the worker,
// which puts each file in its __pycache__ before Python starts, so Python
// imports without compiling. The copy is checked with its SHA-256 before use;
// anything missing or wrong means a boot as before.

import { sha256 } from "./download.js";

const CACHE = "attention-lab-bytecode";
const DIGEST = "X-Lab-SHA256";

// The cache key of a runtime's bytecode: a URL that is never fetched.
export function bytecodeKey(base) {
  return new URL("__bytecode", base).href;
}

export async function savedBytecode(key) {
  try {
    if (!globalThis.caches || !globalThis.crypto || !crypto.subtle) return null;
    const cache = await caches.open(CACHE);
    const response = await cache.match(key);
    if (!response) return null;
    const buffer = await response.arrayBuffer();
    if ((await sha256(buffer)) !== response.headers.get(DIGEST)) {
      await cache.delete(key);
      return null;
    }
    return buffer;
  } catch (error) {
    return null; // storage refused (private mode, quota): compile as before
  }
}

// Keep `buffer` for this runtime, and only for it.
export async function saveBytecode(key, buffer) {
  try {
    if (!globalThis.caches || !globalThis.crypto || !crypto.subtle) return;
    const digest = await sha256(buffer);
    const cache = await caches.open(CACHE);
    for (const request of await cache.keys()) if (request.url !== key) await cache.delete(request);
    await cache.put(key, new Response(buffer, { headers: { [DIGEST]: digest } }));
  } catch (error) {
    // Not kept: the next visit compiles, as this one did.
  }
}
