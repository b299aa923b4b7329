// Keeps the lab for a visit without a network: registers the service worker
// (sw.js, beside the pages) once Python is live, so its start never competes
// with the runtime's download, and hands it the files this visit fetched
// before the worker was in control (from the HTTP cache, no second download).
// Once it has stored them, <body data-offline="saved">.
// Offline use is an extra: when it is not possible (a browser without
// service workers, a plain-http address on a LAN), nothing else changes.

export const OFFLINE_HEADER = "X-Lab-Offline"; // set by sw.js on a saved copy

function usedFiles(scope) {
  const names = performance.getEntriesByType("resource").map((entry) => entry.name);
  return [location.href, ...names].filter((name) => name.startsWith(scope));
}

export function keepForOffline() {
  if (!("serviceWorker" in navigator) || !window.isSecureContext) return;
  const scope = new URL("./", document.baseURI).href;
  const handOver = () => navigator.serviceWorker.ready.then((registration) => {
    if (registration.active) registration.active.postMessage({ type: "keep", urls: usedFiles(scope) });
  });
  navigator.serviceWorker.addEventListener("message", (event) => {
    // Everything this visit used is stored: the next one works offline.
    if (event.data && event.data.type === "kept") document.body.dataset.offline = "saved";
  });
  navigator.serviceWorker.register(new URL("sw.js", document.baseURI), { scope })
    .then(handOver)
    .catch(() => {}); // no saved copy: the lab works as before
  // A newer build's worker takes over with an empty cache of its own.
  navigator.serviceWorker.addEventListener("controllerchange", () => { handOver().catch(() => {}); });
}

// Whether a response is the service worker's saved copy (the network failed).
export function fromSavedCopy(response) {
  return response.headers.get(OFFLINE_HEADER) === "1";
}
