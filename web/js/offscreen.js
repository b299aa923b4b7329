// Parts of the page off screen skip their rendering. Every change redraws
// parts of several panels, and the browser's style, layout and paint of the
// parts nobody sees were most of a change's time. With
// `content-visibility: auto` (lab.css, under body[data-offscreen]) the
// browser renders a part only near the screen, and keeps its contents in
// the page: find-in-page, focus, links and screen readers still reach them.
//
// The parts are the panels and, inside a panel, its tall blocks (a pair of
// tables, a figure, the vector editor), and each head's block: a panel
// taller than the screen (the heads with «todas») then renders only the
// blocks in view, not all of itself.
//
// A skipped part keeps a height: the one it last had on screen
// (`contain-intrinsic-size: auto`). So that a part never seen yet holds its
// own height, not a guess (a link or a reload would land off), it starts
// from the height it has when this turns on: after the first whole view is
// drawn and laid out, read from a layout the browser has already done.
// Blocks that a later change adds (the heads of «todas») start from the
// guess in lab.css until they are first on screen.

const PANELS = ":scope > section.panel";
const BLOCKS = ":scope > section.panel > *, :scope > section.panel .blocks > *";
const TALL = 160; // px: below this a block costs little to render, and is left alone

function contentHeight(part) {
  const box = getComputedStyle(part);
  const edges = ["paddingTop", "paddingBottom", "borderTopWidth", "borderBottomWidth"]
    .reduce((sum, side) => sum + parseFloat(box[side]), 0);
  return part.getBoundingClientRect().height - edges;
}

export function skipOffScreen(root) {
  if (!CSS.supports("content-visibility", "auto")) return;
  requestAnimationFrame(() => setTimeout(() => {
    const heights = new Map();
    for (const panel of root.querySelectorAll(PANELS)) heights.set(panel, contentHeight(panel));
    for (const block of root.querySelectorAll(BLOCKS)) {
      const height = contentHeight(block);
      if (height >= TALL) {
        heights.set(block, height);
        block.dataset.skip = "";
      }
    }
    // All read first, then all written: one layout, not one per part.
    for (const [part, height] of heights) {
      if (height > 0) part.style.containIntrinsicHeight = `auto ${height}px`;
    }
    document.body.dataset.offscreen = "";
  }));
}
