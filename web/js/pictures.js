// Pictures: every number they show comes from Python (lab_core/pictures.py
// and the panels); these functions only map plot coordinates to pixels and
// draw. Each picture carries its text alternative from Python.

import { el, svg as svgElement } from "./dom.js";

// The RoPE picture: q and k before (faint) and after rotation (solid).
export function renderRopeDrawing(node, drawing) {
  const size = 240;
  const c = size / 2;
  const scale = (size / 2 - 24) / drawing.extent;
  const svg = svgElement("svg", { viewBox: `0 0 ${size} ${size}`, role: "img", "aria-label": drawing.label });
  const add = (tag, attrs, text) => {
    const item = svgElement(tag, attrs, text);
    svg.append(item);
    return item;
  };
  const defs = add("defs", {});
  for (const role of ["q", "k"]) {
    const marker = svgElement("marker", { id: `arrow-${role}`, viewBox: "0 0 10 10",
      refX: 9, refY: 5, markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse" });
    marker.append(svgElement("path", { d: "M0,0 L10,5 L0,10 z", class: `rope-${role}` }));
    defs.append(marker);
  }
  add("line", { x1: 8, y1: c, x2: size - 8, y2: c, class: "axis" });
  add("line", { x1: c, y1: 8, x2: c, y2: size - 8, class: "axis" });
  add("circle", { cx: c, cy: c, r: scale, class: "unit" });
  for (const v of drawing.vectors) {
    if (v.null) continue; // a null vector has no direction to draw
    const x = c + v.x * scale;
    const y = c - v.y * scale;
    add("line", { x1: c, y1: c, x2: x, y2: y, "marker-end": `url(#arrow-${v.role})`,
      class: `vec rope-${v.role} ${v.moved ? "moved" : "original"}` });
    add("text", { x: x + (v.x >= 0 ? 4 : -4), y: y - 4,
      "text-anchor": v.x >= 0 ? "start" : "end", class: `label rope-${v.role}` }, v.name);
  }
  node.replaceChildren(svg);
}

// A heatmap of values in [−1, 1] on a canvas: blue −1, white 0, red +1.
// The view sends each value times map.scale, as an integer.
// One pixel per value in an ImageData, then scaled up in one drawImage
// without smoothing: the same colours as a rectangle per cell (64 × 128
// values are 8.192 of them), for a fraction of the time.
export function renderHeatmap(node, map) {
  let canvas = node.querySelector("canvas");
  if (!canvas) {
    canvas = document.createElement("canvas");
    canvas.setAttribute("role", "img");
    node.replaceChildren(canvas);
  }
  // Whole pixels per cell, within about 360 × 288: cells at most 40 px a
  // side (d_model = 2 is a strip of two, not a wall 4.000 px tall on a
  // phone, nor a speck at one position), rows at least 2 px tall. The page
  // shows it at this size, or narrower on a narrow screen.
  canvas.width = map.cols * Math.max(2, Math.min(40, Math.floor(360 / map.cols)));
  canvas.height = map.rows * Math.max(2, Math.min(40, Math.floor(288 / map.rows)));
  canvas.setAttribute("aria-label", map.label);
  const pixels = new ImageData(map.cols, map.rows);
  const data = pixels.data;
  map.values.forEach((row, r) => {
    row.forEach((scaled, c) => {
      const v = scaled / map.scale;
      // White at 0, red at +1, blue at −1.
      const a = Math.min(1, Math.abs(v));
      const fade = (to) => Math.round(255 - a * (255 - to));
      const at = 4 * (r * map.cols + c);
      data[at] = v >= 0 ? fade(214) : fade(40);
      data[at + 1] = v >= 0 ? fade(40) : fade(70);
      data[at + 2] = v >= 0 ? fade(40) : fade(214);
      data[at + 3] = 255;
    });
  });
  const small = document.createElement("canvas");
  small.width = map.cols;
  small.height = map.rows;
  small.getContext("2d").putImageData(pixels, 0, 0);
  const context = canvas.getContext("2d");
  context.imageSmoothingEnabled = false;
  context.drawImage(small, 0, 0, canvas.width, canvas.height);
}


// ------------------------------------------------------------ head view

const ROW = 30; // px per word
const SPAN = 170; // px between the two columns of words
const DASHES = ["", "7 4", "2 4"]; // one pattern per head: never colour alone

// Words on the left (queries) and on the right (keys), lines between them
// whose thickness and opacity follow the weight; a masked pair has no line.
// Hovering or focusing a word shows only its lines, and the weights beside
// the words at their other ends. The lines stretch to the width available.
// A change of query alone (the commonest change: a click on a row or a
// cell) moves the highlight; anything else draws the picture anew.
const headViews = new WeakMap(); // node -> {shape, queries: the left column's buttons}

export function renderHeadView(node, view) {
  const { query, ...rest } = view;
  const shape = JSON.stringify(rest);
  const last = headViews.get(node);
  if (last && last.shape === shape && node.contains(last.queries[0])) {
    last.queries.forEach((button, i) => button.classList.toggle("hv-query", i === query));
    return;
  }
  const n = view.words.length;
  const height = n * ROW + 8;
  const figure = el("div", undefined, "headview");
  const svg = svgElement("svg", { viewBox: `0 0 ${SPAN} ${height}`, height,
    preserveAspectRatio: "none", "aria-hidden": "true", focusable: "false" });
  const y = (i) => 4 + ROW * (i + 0.5);
  const links = view.links.map((link) => {
    const line = svgElement("line", {
      x1: 0, y1: y(link.from), x2: SPAN, y2: y(link.to),
      class: `hv-link head-${link.head}`, "vector-effect": "non-scaling-stroke",
      "stroke-width": (0.8 + 6 * link.weight).toFixed(2),
      "stroke-opacity": (0.2 + 0.8 * link.weight).toFixed(2),
    });
    const dash = DASHES[link.head % DASHES.length];
    if (dash) line.setAttribute("stroke-dasharray", dash);
    svg.append(line);
    return { link, line };
  });
  const buttons = { q: [], k: [] };
  const column = (side) => {
    const list = el("div", undefined, `hv-words hv-${side}`);
    view.words.forEach((word, i) => {
      const button = el("button", undefined, "hv-word");
      button.type = "button";
      button.style.height = `${ROW}px`;
      const weight = el("span", "", "hv-w");
      if (side === "q") button.append(weight, el("span", word));
      else button.append(el("span", word), weight);
      button.setAttribute("aria-label", view.labels[side][i]); // Python's words
      if (side === "q" && i === view.query) button.classList.add("hv-query");
      const show = () => {
        figure.classList.add("hv-active");
        const other = side === "q" ? "k" : "q";
        for (const item of buttons[other]) item.weight.textContent = "";
        for (const item of links) {
          const on = (side === "q" ? item.link.from : item.link.to) === i;
          item.line.classList.toggle("hv-on", on);
          if (on) {
            const end = buttons[other][side === "q" ? item.link.to : item.link.from].weight;
            end.textContent = end.textContent ? `${end.textContent} / ${item.link.text}` : item.link.text;
          }
        }
      };
      const hide = () => {
        figure.classList.remove("hv-active");
        for (const item of [...buttons.q, ...buttons.k]) item.weight.textContent = "";
      };
      button.addEventListener("mouseenter", show);
      button.addEventListener("focus", show);
      button.addEventListener("mouseleave", hide);
      button.addEventListener("blur", hide);
      buttons[side].push({ button, weight });
      list.append(button);
    });
    return list;
  };
  figure.append(column("q"), svg, column("k"));
  const parts = [figure];
  if (view.heads.length > 1) {
    const legend = el("ul", undefined, "hv-legend");
    for (const head of view.heads) {
      const item = el("li");
      const sample = svgElement("svg", { width: 28, height: 10, "aria-hidden": "true" });
      const line = svgElement("line", { x1: 1, y1: 5, x2: 27, y2: 5, class: `hv-link head-${head.style}`,
        "stroke-width": 3 });
      if (DASHES[head.style]) line.setAttribute("stroke-dasharray", DASHES[head.style]);
      sample.append(line);
      item.append(sample, document.createTextNode(` ${head.label}`));
      legend.append(item);
    }
    parts.push(legend);
  }
  parts.push(el("p", view.alt, "visually-hidden"));
  node.replaceChildren(...parts);
  headViews.set(node, { shape, queries: buttons.q.map((item) => item.button) });
}

// ---------------------------------------------------------------- charts

const W = 380;
const H = 230;
const PAD = { left: 52, right: 14, top: 16, bottom: 44 };

// Axes with Python's ticks, series in plot coordinates, an optional marker.
export function renderChart(node, chart) {
  if (!chart) {
    node.replaceChildren();
    return;
  }
  const { x, y } = chart;
  // Room on the left for the longest y label (10 px digits, about 5,8 px
  // each, beside the axis's own rotated label): «300.000.000» was cut.
  const left = Math.max(PAD.left, 26 + Math.ceil(5.8 * Math.max(0, ...y.ticks.map((t) => t.label.length))));
  const px = (v) => left + ((v - x.min) / (x.max - x.min)) * (W - left - PAD.right);
  const py = (v) => H - PAD.bottom - ((v - y.min) / (y.max - y.min)) * (H - PAD.top - PAD.bottom);
  const svg = svgElement("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": chart.alt,
    class: "chart" });
  svg.append(svgElement("line", { x1: left, y1: py(y.min), x2: W - PAD.right, y2: py(y.min), class: "axis" }));
  svg.append(svgElement("line", { x1: left, y1: PAD.top, x2: left, y2: py(y.min), class: "axis" }));
  for (const tick of x.ticks) {
    svg.append(svgElement("line", { x1: px(tick.value), y1: py(y.min), x2: px(tick.value), y2: py(y.min) + 4, class: "axis" }));
    svg.append(svgElement("text", { x: px(tick.value), y: py(y.min) + 15, "text-anchor": "middle", class: "tick" }, tick.label));
  }
  for (const tick of y.ticks) {
    svg.append(svgElement("line", { x1: left, y1: py(tick.value), x2: W - PAD.right, y2: py(tick.value), class: "grid" }));
    svg.append(svgElement("text", { x: left - 5, y: py(tick.value) + 4, "text-anchor": "end", class: "tick" }, tick.label));
  }
  svg.append(svgElement("text", { x: (left + W - PAD.right) / 2, y: H - 6, "text-anchor": "middle", class: "axis-label" }, x.label));
  svg.append(svgElement("text", { x: 12, y: PAD.top + (H - PAD.top - PAD.bottom) / 2, "text-anchor": "middle",
    transform: `rotate(-90 12 ${PAD.top + (H - PAD.top - PAD.bottom) / 2})`, class: "axis-label" }, y.label));
  for (const series of chart.series) {
    if (chart.kind === "bars") {
      const width = Math.max(6, (W - left - PAD.right) / (series.points.length * 2.5));
      for (const [vx, vy] of series.points) {
        svg.append(svgElement("rect", { x: px(vx) - width / 2, y: py(vy), width, height: Math.max(0, py(y.min) - py(vy)),
          class: `bar series-${series.style}` }));
      }
    } else {
      const line = svgElement("polyline", { points: series.points.map(([vx, vy]) => `${px(vx).toFixed(1)},${py(vy).toFixed(1)}`).join(" "),
        class: `series series-${series.style}` });
      if (series.dash) line.setAttribute("stroke-dasharray", "6 4");
      svg.append(line);
      // Few points, or values that exist only at the points (RoPE's whole
      // offsets): each one drawn, so one point still shows, and a line
      // between two is not read as values in between.
      if (series.points.length <= 16 || series.dots) {
        for (const [vx, vy] of series.points) {
          svg.append(svgElement("circle", { cx: px(vx), cy: py(vy), r: 2.5, class: `point series-${series.style}` }));
        }
      }
    }
  }
  if (chart.marker) {
    svg.append(svgElement("line", { x1: px(chart.marker.x), y1: PAD.top, x2: px(chart.marker.x), y2: py(y.min), class: "marker" }));
    svg.append(svgElement("circle", { cx: px(chart.marker.x), cy: py(chart.marker.y), r: 4, class: "marker-dot" }));
  }
  const parts = [svg];
  if (chart.series.length > 1) {
    const legend = el("ul", undefined, "chart-legend");
    for (const series of chart.series) {
      const item = el("li");
      const sample = svgElement("svg", { width: 28, height: 10, "aria-hidden": "true" });
      const line = svgElement("line", { x1: 1, y1: 5, x2: 27, y2: 5, class: `series series-${series.style}` });
      if (series.dash) line.setAttribute("stroke-dasharray", "6 4");
      sample.append(line);
      // A series drawn with its points shows one in its sample too.
      if (series.dots) sample.append(svgElement("circle", { cx: 14, cy: 5, r: 2.5, class: `point series-${series.style}` }));
      item.append(sample, document.createTextNode(` ${series.name}`));
      legend.append(item);
    }
    parts.push(legend);
  }
  node.replaceChildren(...parts);
}
