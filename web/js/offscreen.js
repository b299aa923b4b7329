// Panels off screen skip their rendering. Every change redraws parts of
// several panels, and the browser's style, layout and paint of the parts
// nobody sees were most of a change's time on a phone. With
// `content-visibility: auto` (lab.css, under body[data-offscreen]) the
// browser renders a panel only near the screen, and keeps its contents in
// the page: find-in-page, focus, links and screen readers still reach them.
//
// A skipped panel keeps a height: the one it last had on screen
// (`contain-intrinsic-size: auto`). So that a panel never seen yet holds its
// own height, not a guess (a link or a reload would land off), it starts
// from the height it has when this turns on: after the first whole view is
// drawn and laid out, read from a layout the browser has already done.

export function skipOffScreen(root) {
  if (!CSS.supports("content-visibility", "auto")) return;
  requestAnimationFrame(() => setTimeout(() => {
    for (const panel of root.querySelectorAll(":scope > section.panel")) {
      // The size a skipped panel keeps is its content's: without padding and border.
      const box = getComputedStyle(panel);
      const edges = ["paddingTop", "paddingBottom", "borderTopWidth", "borderBottomWidth"]
        .reduce((sum, side) => sum + parseFloat(box[side]), 0);
      const height = panel.getBoundingClientRect().height - edges;
      if (height > 0) panel.style.containIntrinsicHeight = `auto ${height}px`;
    }
    document.body.dataset.offscreen = "";
  }));
}
