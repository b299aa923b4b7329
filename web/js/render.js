// Draws a view (the JSON dict built by lab_core.views.build_view).
// Elements say what they show: data-render names a renderer in RENDERERS,
// data-source is a dotted path into the view. Text always goes in through
// textContent; nothing from the view or the URL is parsed as HTML.

function lookup(view, path) {
  let value = view;
  for (const part of path.split(".")) {
    if (value === null || typeof value !== "object" || !(part in value)) {
      throw new Error(`la vista no tiene «${path}»`);
    }
    value = value[part];
  }
  return value;
}

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

function renderText(node, value) {
  node.textContent = String(value);
}

function renderSelect(node, control) {
  const wanted = control.options.map((o) => `${o.value}\u0000${o.label}`).join("\u0001");
  if (node.dataset.options !== wanted) {
    node.replaceChildren(
      ...control.options.map((option) => {
        const item = el("option", option.label);
        item.value = String(option.value);
        return item;
      }),
    );
    node.dataset.options = wanted;
  }
}

// A table: caption, column headers (keys), one row per query token.
// data-numeric="heat" shades each cell by its value (a weight in [0, 1]).
function renderTable(node, table) {
  const heat = node.dataset.numeric === "heat";
  const element = el("table", undefined, `lab-table ${heat ? "heat" : ""}`);
  element.id = `table-${table.id}`;
  element.append(el("caption", table.caption));

  const head = el("thead");
  const headRow = el("tr");
  headRow.append(el("th", table.corner, "corner"));
  for (const column of table.columns) {
    const th = el("th", column);
    th.scope = "col";
    headRow.append(th);
  }
  head.append(headRow);

  const body = el("tbody");
  table.rows.forEach((row, i) => {
    const tr = el("tr", undefined, row.selected ? "selected" : "");
    if (row.selected) tr.setAttribute("aria-current", "true");
    const th = el("th");
    th.scope = "row";
    const pick = el("button", row.label, "row-pick");
    pick.type = "button";
    pick.dataset.query = String(i);
    pick.title = `Usar «${row.label}» como consulta`;
    th.append(pick);
    tr.append(th);
    for (const cell of row.cells) {
      const td = el("td", cell.text, cell.masked ? "masked" : "");
      if (heat && cell.value !== null) td.style.setProperty("--w", String(cell.value));
      tr.append(td);
    }
    body.append(tr);
  });
  element.append(head, body);
  node.replaceChildren(element);
}

const RENDERERS = {
  text: renderText,
  select: renderSelect,
  table: renderTable,
};

export function renderView(root, view) {
  for (const node of root.querySelectorAll("[data-render]")) {
    const renderer = RENDERERS[node.dataset.render];
    if (!renderer) throw new Error(`no hay un dibujante llamado «${node.dataset.render}»`);
    renderer(node, lookup(view, node.dataset.source));
  }
  for (const select of root.querySelectorAll("select[data-key]")) {
    select.value = String(view.state[select.dataset.key]);
  }
}

export function renderNotices(list, messages) {
  list.replaceChildren(...messages.map((message) => el("li", message)));
}
