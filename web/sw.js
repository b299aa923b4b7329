// The lab's service worker: after one visit, the lab opens and works without
// a network (a classroom's Wi-Fi that drops). Registered by js/offline.js
// once Python is live, for the site's own folder only (its scope is this
// file's folder, so it works under a path prefix too).
//
// Two kinds of file, two rules:
// - named by their content (runtime/<version>-<hash>/, wheels/<hash>/,
//   views/<hash>/): the same URL is always the same bytes, so the cached
//   copy is served first and the network is asked only for what is missing;
// - everything else (the pages, manifest.json, the script, the style sheet):
//   the network first, so a new build is seen at once; the cached copy only
//   when the network fails, marked with the header X-Lab-Offline so the page
//   can say it is using its saved copy.
// A request made with cache: "reload" (the page re-fetching a file whose
// SHA-256 did not match) always goes to the network and replaces the copy.
//
// Each build writes its own version below (scripts/build.py), so a new build
// is a new worker: it keeps its files in a cache of its own and deletes the
// older builds' caches when it takes over. What the page used before this
// worker controlled it (the runtime it downloaded, its first view) the page
// hands over once live ("keep"), from the browser's HTTP cache.

const BUILD = null; // {version, shell: [urls relative to this file]}: written by the build

const PREFIX = "attention-lab-build-";
// Where pages of earlier builds kept Python's bytecode between visits; the
// runtime now ships it compiled, so that cache is only deleted.
const RETIRED = ["attention-lab-bytecode"];
const CACHE = PREFIX + (BUILD ? BUILD.version : "dev");
const SCOPE = self.registration.scope; // ends with "/"
const HASHED = [/^runtime\/[^/]+\//, /^wheels\/[0-9a-f]{8,64}\//, /^views\/[0-9a-f]{8,64}\//];

function inScope(url) {
  return url.startsWith(SCOPE) && !url.slice(SCOPE.length).includes("..");
}

function isHashed(url) {
  const path = url.slice(SCOPE.length).split(/[?#]/)[0];
  return HASHED.some((pattern) => pattern.test(path));
}

// Pages are stored without their query: a link with any state opens offline.
function key(request) {
  if (request.mode !== "navigate") return request;
  const url = new URL(request.url);
  url.search = "";
  url.hash = "";
  return url.href;
}

async function keep(cache, urls) {
  await Promise.all(urls.map(async (url) => {
    try {
      const response = await fetch(url);
      if (response.ok && response.status === 200) await cache.put(url, response);
    } catch (error) {
      // Not reachable now: the next visit's fetch will store it.
    }
  }));
}

self.addEventListener("install", (event) => {
  const shell = BUILD ? BUILD.shell.map((path) => new URL(path, SCOPE).href) : [];
  event.waitUntil(caches.open(CACHE).then((cache) => keep(cache, shell)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    const names = await caches.keys();
    await Promise.all(names.filter((name) => (name.startsWith(PREFIX) && name !== CACHE) ||
      RETIRED.includes(name)).map((name) => caches.delete(name)));
    await self.clients.claim();
  })());
});

// The page, once live: the files it fetched before this worker controlled it.
self.addEventListener("message", (event) => {
  const message = event.data || {};
  if (message.type !== "keep" || !Array.isArray(message.urls)) return;
  const urls = message.urls.filter((url) => typeof url === "string" && inScope(url));
  event.waitUntil(caches.open(CACHE).then(async (cache) => {
    const missing = [];
    for (const url of urls) if (!(await cache.match(url, { ignoreSearch: true }))) missing.push(url);
    await keep(cache, missing);
    // The page marks itself saved (<body data-offline="saved">).
    if (event.source) event.source.postMessage({ type: "kept", version: CACHE });
  }));
});

async function fromNetwork(request, cache) {
  const response = await fetch(request);
  if (response.ok && response.status === 200) await cache.put(key(request), response.clone());
  return response;
}

async function offlineCopy(request, cache) {
  const cached = await cache.match(key(request), { ignoreSearch: request.mode === "navigate" });
  if (!cached) return null;
  const headers = new Headers(cached.headers);
  headers.set("X-Lab-Offline", "1");
  return new Response(cached.body, { status: cached.status, statusText: cached.statusText, headers });
}

async function answer(request) {
  const cache = await caches.open(CACHE);
  if (request.cache === "reload" || request.cache === "no-store") {
    return fromNetwork(request, cache);
  }
  if (isHashed(request.url)) {
    const cached = await cache.match(request);
    return cached || fromNetwork(request, cache);
  }
  try {
    return await fromNetwork(request, cache);
  } catch (error) {
    const copy = await offlineCopy(request, cache);
    if (copy) return copy;
    throw error;
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || !inScope(request.url) || request.headers.has("range")) return;
  event.respondWith(answer(request));
});
