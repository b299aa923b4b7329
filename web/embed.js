// For a page that embeds a panel of the lab: the snippet «Insertar» gives
// loads this file next to its <iframe>. Each lab frame says how tall its
// content is (share.js, in embed mode) and its frame takes that height, so
// it never scrolls inside itself. A script file, not inline code, so that a
// course page with a strict Content-Security-Policy can allow it by origin.
addEventListener("message", (event) => {
  const data = event.data;
  if (!data || typeof data !== "object" || data.type !== "attention-lab:height") return;
  const height = Number(data.height);
  if (!Number.isFinite(height) || height <= 0) return;
  for (const frame of document.querySelectorAll("iframe")) {
    if (frame.contentWindow === event.source) frame.style.height = `${Math.ceil(height)}px`;
  }
});
