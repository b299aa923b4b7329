"""The site's HTTP policy, in one place: what every response carries.

scripts/serve.py sends these headers; the build writes them as a `_headers`
file for static hosts (Netlify, Cloudflare Pages) and checks each page's
<meta http-equiv="Content-Security-Policy"> against PAGE_CSP. Keeping the
policy here means the local server and a deployed copy cannot drift apart.

Paths are site-relative ("js/worker.js" or "/js/worker.js": the leading
slash is optional), already decoded and normalised by the caller.

There is deliberately no frame-ancestors directive and no X-Frame-Options:
the lab is meant to be embedded in iframes on course pages.
"""
from __future__ import annotations

import re

# The policy of pages and of everything that is not the Python worker.
PAGE_CSP = "; ".join((
    # Anything not named below: only this site. The lab works offline, so it
    # never needs another origin.
    "default-src 'self'",
    # Scripts: the page's own ES modules only; no inline script, no eval.
    # Python (and its eval needs) lives in the worker, which has its own policy.
    "script-src 'self'",
    # The Python runtime runs in a dedicated worker loaded from this site.
    "worker-src 'self'",
    # fetch() of the manifest, the views, the runtime files and the wheel.
    "connect-src 'self'",
    # data: for the empty favicon (href="data:,"), blob: for canvas exports.
    "img-src 'self' data: blob:",
    # The stylesheet only: no inline <style> or style="" attributes.
    "style-src 'self'",
    "font-src 'self'",
    # No plugins, ever.
    "object-src 'none'",
    # No <base>: relative URLs always resolve against the page itself.
    "base-uri 'none'",
    # The lab has no forms that submit anywhere.
    "form-action 'none'",
    # The lab frames nothing (it is the one being framed).
    "frame-src 'none'",
))

# The policy of the Python worker's script (js/worker.js) and of the Pyodide
# runtime files. A dedicated worker takes its policy from its own script's
# response headers, not from the page that starts it, so the eval
# permissions below stay confined to the worker: Pyodide 0.17 builds
# callable proxies with Reflect.construct(Function, ...) ('unsafe-eval') and
# compiles WebAssembly ('wasm-unsafe-eval').
WORKER_CSP = "; ".join((
    "default-src 'self'",
    "script-src 'self' 'unsafe-eval' 'wasm-unsafe-eval'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
))

# Sent with every response, errors and 304s included.
SECURITY_HEADERS = (
    ("X-Content-Type-Options", "nosniff"),  # a .js is never sniffed as HTML
    # Lab URLs carry the reader's state; links out do not need to see it.
    ("Referrer-Policy", "no-referrer"),
)

# Folders whose files are named by their version or content hash, so a URL
# never changes meaning and can be cached for a year. ":hash" stands for one
# path segment that is a content hash (lowercase hex), e.g. views/3fa2c1d9/.
# A host's `_headers` placeholder cannot check for hex, so there every
# sub-folder of views/ is immutable: the build must put only hashed ones there.
IMMUTABLE_PREFIXES = ("runtime/", "wheels/", "views/:hash/")
HASH_SEGMENT = re.compile(r"[0-9a-f]{8,64}")

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"  # may be stored, but checked with the ETag each time
WORKER_PATHS = ("js/worker.js",)
WORKER_PREFIXES = ("runtime/",)


def segments(path):
    """A site path as its segments, so "/a/b" and "a/b" are the same path."""
    return [part for part in path.strip("/").split("/") if part]


def matches_prefix(path, prefix):
    """Whether `path` lies inside the folder `prefix` (":hash" = any hash)."""
    parts, wanted = segments(path), segments(prefix)
    if len(parts) <= len(wanted):
        return False  # the folder itself, or shorter: not a file inside it
    return all(
        HASH_SEGMENT.fullmatch(part) if want == ":hash" else part == want
        for part, want in zip(parts, wanted)
    )


def is_immutable(path, immutable_prefixes=IMMUTABLE_PREFIXES):
    """Whether `path` is versioned, so caching it forever is safe."""
    return any(matches_prefix(path, prefix) for prefix in immutable_prefixes)


def csp_for(path):
    """The worker policy for the worker and the runtime, the page one otherwise."""
    if path is not None:
        if "/".join(segments(path)) in WORKER_PATHS:
            return WORKER_CSP
        if any(matches_prefix(path, prefix) for prefix in WORKER_PREFIXES):
            return WORKER_CSP
    return PAGE_CSP


def security_headers(path=None):
    """Policy headers without caching: for errors and redirects too."""
    return [("Content-Security-Policy", csp_for(path)), *SECURITY_HEADERS]


def cache_control(path, immutable_prefixes=IMMUTABLE_PREFIXES):
    """Forever for versioned files, revalidate everything else."""
    return IMMUTABLE if is_immutable(path, immutable_prefixes) else REVALIDATE


def headers_for(path, immutable_prefixes=IMMUTABLE_PREFIXES):
    """Every policy header a file at site path `path` is served with."""
    return [*security_headers(path),
            ("Cache-Control", cache_control(path, immutable_prefixes))]


def pattern_for(prefix):
    """A folder prefix as a _headers URL pattern ("runtime/" -> "/runtime/*")."""
    return "/" + "/".join(segments(prefix)) + "/*"


def replace(name, value, detach):
    """Lines that set `name` to `value` in a rule that also matches `/*`.

    Cloudflare joins the values of every matching rule with commas, which
    turns two Cache-Controls into a contradiction and two CSPs into two
    policies that both apply; "! Name" first drops the value `/*` gave.
    Netlify's parser skips a line without a colon, so the file stays valid
    there too.
    """
    return (["! %s" % name] if detach else []) + ["%s: %s" % (name, value)]


def headers_file(immutable_prefixes=IMMUTABLE_PREFIXES, detach=True):
    """The text of a `_headers` file (Netlify / Cloudflare Pages) for the site.

    `/*` comes first: a detach line only removes what earlier rules added.
    """
    rules = {"/*": ["Content-Security-Policy: " + PAGE_CSP,
                    *("%s: %s" % header for header in SECURITY_HEADERS),
                    "Cache-Control: " + REVALIDATE]}
    for path in WORKER_PATHS:
        rules["/" + path] = replace("Content-Security-Policy", WORKER_CSP, detach)
    for prefix in WORKER_PREFIXES:
        rules[pattern_for(prefix)] = replace("Content-Security-Policy", WORKER_CSP, detach)
    for prefix in immutable_prefixes:
        lines = rules.setdefault(pattern_for(prefix), [])
        lines += replace("Cache-Control", IMMUTABLE, detach)
    rules["/*.wasm"] = ["Content-Type: application/wasm"]
    blocks = ["\n".join([pattern] + ["  " + line for line in lines])
              for pattern, lines in rules.items()]
    header = "# Written by scripts/site_headers.py: edit the policy there.\n"
    return header + "\n\n".join(blocks) + "\n"
