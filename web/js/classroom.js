// The classroom kit's buttons (data-classroom), one owner for their clicks:
// copy the link, go back to the article's state, print, switch the theme,
// embed a panel, export a table, download a figure. The work is done by
// share.js, exporting.js and theme.js; dialogs close on their backdrop.

import { exportAction, downloadFigure, initExports, openExport } from "./exporting.js";
import { confirmNear, copy, initShare, showSnippet, withAnswers } from "./share.js";
import { say } from "./text.js";
import { initTheme, nextTheme } from "./theme.js";
import * as url from "./url.js";

let lab = null; // {set, settled(), defaults(), announce(text), live(), whenLive(), exportTable(id), stateLine()}

export function initClassroom(hooks) {
  lab = hooks;
  initTheme();
  initShare(hooks);
  initExports(hooks);
  // A link «con respuestas» opens the answers of a page's questions: where
  // there are none (the model page), it would copy the plain link again.
  if (!document.querySelector(".predict")) {
    for (const button of document.querySelectorAll('[data-classroom="copy-teacher-link"]')) button.hidden = true;
  }
  document.addEventListener("click", onClick);
  for (const dialog of document.querySelectorAll("dialog")) {
    dialog.addEventListener("click", (event) => {
      if (event.target === dialog) dialog.close(); // a click on the backdrop
    });
  }
}

// What reads the state waits for a change still on its way (a field's
// value is sent when pressing the button takes the focus away).
const ACTS = {
  "copy-link": (target) => lab.settled().then(() => copy(url.href(), say("copy.link")))
    .then((ok) => ok && confirmNear(target, say("copy.link.done"))),
  "copy-teacher-link": (target) => lab.settled().then(() => copy(withAnswers(url.href()), say("copy.teacher")))
    .then((ok) => ok && confirmNear(target, say("copy.link.done"))),
  reset: (target) => {
    const { panel, ...article } = lab.defaults(); // the article's state, where the reader is
    lab.set(article).then(() => {
      url.flush(); // a teacher may copy the address bar by hand at once
      confirmNear(target, say("reset.done"));
      lab.announce(say("reset.said"));
    }).catch(() => {});
  },
  theme: () => lab.announce(nextTheme()),
  print: () => lab.settled().then(() => window.print()),
  embed: (target) => {
    const panel = target.closest("section").id;
    lab.settled().then(() => showSnippet(panel));
  },
  "embed-copy": () => copy(document.querySelector("#embed-dialog textarea").value, say("copy.snippet")),
  export: (target) => {
    const table = target.closest(".table-wrap").querySelector("table").id.replace(/^table-/, "");
    lab.settled().then(() => openExport(table));
  },
  "export-format": (target) => exportAction(target),
  // A change on its way (a head chosen just before) is in the file too.
  figure: (target) => lab.settled().then(() => downloadFigure(target.closest("figure"))),
  close: (target) => target.closest("dialog").close(),
};

function onClick(event) {
  const target = event.target.closest("button, a");
  if (!target || !target.dataset.classroom) return;
  const act = ACTS[target.dataset.classroom];
  if (!act) throw new Error(`no classroom action "${target.dataset.classroom}"`);
  act(target);
}
