// Every word the page shows comes from Python (lab_core/page_text.py): the
// build writes the table into the page as data (<script type="application/json"
// id="lab-text">). say(key, values) fills a template's {names} with values
// that are words Python wrote or counts; the page never joins words of its
// own nor formats a number. A leaf module.

let table = null;

function pageTable() {
  const node = typeof document === "undefined" ? null : document.getElementById("lab-text");
  try {
    return node ? JSON.parse(node.textContent) : {};
  } catch (error) {
    return {};
  }
}

/** The page's words (a test or another page may hand its own). */
export function useText(words) {
  table = words;
}

/** Whether the table has words for `key` (an HTTP status it names, say). */
export function has(key) {
  if (table === null) table = pageTable();
  return Object.prototype.hasOwnProperty.call(table, key);
}

export function say(key, values = {}) {
  if (table === null) table = pageTable();
  const template = table[key];
  if (template === undefined) return key; // a page built without its words still says something
  return template.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}
