// Downloads the files the boot needs, and says exactly what went wrong when
// one does not arrive. Every file comes from manifest.json with its size and
// SHA-256 (written by scripts/build.py), so a failure is classified:
//   network  the connection failed or was cut
//   http     the server answered with an error status
//   corrupt  the file arrived truncated or with other content
//   timeout  no byte of any file arrived for STALL_MS (the caller's stall
//            timer aborts the downloads still waiting: a request queued
//            behind others on a slow network is not stalled by itself)
// Files already downloaded are kept by the caller, so a retry fetches only
// what is missing (and re-fetches a corrupt file past the HTTP cache).

import { say } from "./text.js";

export const STALL_MS = 30000; // the texts say «30 s» (lab_core/page_text.py)

export class LoadError extends Error {
  // kind: network | http | corrupt | timeout | runtime | missing-numpy | script
  constructor(kind, file, detail, extra = {}) {
    super(detail);
    this.name = "LoadError";
    this.kind = kind;
    this.file = file; // {url, label, Label, feminine, ...} or null
    Object.assign(this, extra);
  }
}

// A timer that fires when nothing has happened for STALL_MS.
export function stallTimer(onStall) {
  let timer = setTimeout(onStall, STALL_MS);
  return {
    poke() {
      clearTimeout(timer);
      timer = setTimeout(onStall, STALL_MS);
    },
    stop() {
      clearTimeout(timer);
    },
  };
}

export async function sha256(buffer) {
  // Not available on a plain-http LAN address (not a secure context): the
  // size check still catches a truncated file.
  if (!globalThis.crypto || !crypto.subtle) return null;
  const digest = await crypto.subtle.digest("SHA-256", buffer);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

// A file named by its content (file.immutable) that the service worker kept
// (sw.js): read from its cache here, without the worker's round trip. Checked
// like any download; a copy refused is fetched again with `fresh`.
async function savedCopy(file) {
  if (!file.immutable || !globalThis.caches) return null;
  try {
    return (await caches.match(file.url)) || null;
  } catch (error) {
    return null; // storage not available (private mode, a LAN address): the network
  }
}

// One file, as an ArrayBuffer; onBytes(n) reports progress as it streams.
// `stall` is a shared AbortController: aborting it means the whole download
// step stopped making progress.
// onResponse(response) sees the response's headers before its body is read;
// onChunk(bytes) each part of the body as it arrives (unchecked: a consumer
// may compile it, never run it), and onEnd() the body's end.
export async function download(file, { onBytes = () => {}, onResponse = () => {}, onChunk = () => {},
  onEnd = () => {}, fresh = false, stall } = {}) {
  const controller = stall || new AbortController();
  const fail = (error) => {
    if (controller.signal.aborted) {
      return new LoadError("timeout", file, say("detail.stalled"));
    }
    return new LoadError("network", file, error && error.message ? error.message : String(error));
  };
  try {
    let response = fresh ? null : await savedCopy(file);
    try {
      response = response || await fetch(file.url, { signal: controller.signal,
        cache: fresh ? "reload" : "default" });
    } catch (error) {
      throw fail(error);
    }
    if (!response.ok) {
      throw new LoadError("http", file, `HTTP ${response.status}`, { status: response.status });
    }
    onResponse(response);
    const reader = response.body.getReader();
    const chunks = [];
    let received = 0;
    for (;;) {
      let part;
      try {
        part = await reader.read();
      } catch (error) {
        throw fail(error);
      }
      if (part.done) break;
      chunks.push(part.value);
      received += part.value.length;
      onChunk(part.value);
      onBytes(part.value.length);
    }
    onEnd();
    const bytes = new Uint8Array(received);
    let offset = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, offset);
      offset += chunk.length;
    }
    if (file.size !== undefined && received !== file.size) {
      throw new LoadError("corrupt", file, say("detail.short", { received, size: file.size }),
        { truncated: received < file.size });
    }
    const digest = file.sha256 ? await sha256(bytes.buffer) : null;
    if (digest !== null && digest !== file.sha256) {
      throw new LoadError("corrupt", file, say("detail.digest",
        { got: digest.slice(0, 12), want: file.sha256.slice(0, 12) }));
    }
    return bytes.buffer;
  } finally {
    if (!stall) controller.abort(); // a private controller: nothing left to cancel
  }
}

// A JSON file the boot needs (manifest.json, which the page preloaded: the
// same request reuses it), with the same stall timer and errors as any
// runtime file.
export async function downloadJSON(file, { onResponse } = {}) {
  const stall = new AbortController();
  const timer = stallTimer(() => stall.abort());
  try {
    const bytes = await download(file, { stall, onResponse, onBytes: () => timer.poke() });
    try {
      return JSON.parse(new TextDecoder().decode(bytes));
    } catch (error) {
      throw new LoadError("corrupt", file, say("detail.json"));
    }
  } finally {
    timer.stop();
  }
}

// JSON that may be missing or broken without harm (a prepared view): null then.
export async function optionalJSON(url) {
  try {
    const response = await fetch(url);
    if (!response.ok) return null;
    const data = await response.json();
    return data && typeof data === "object" ? data : null;
  } catch (error) {
    return null;
  }
}
