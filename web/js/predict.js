// The questions that ask the reader to predict before they look (panels 1,
// 4, 5, 7 and 8; the block page's quiz): drawn from the view's prompt
// ({id, question, options, answers, explanation}, lab_core/views.py), with
// what a question hides veiled until the reader answers or chooses to look
// without predicting. render.js draws them as the renderer «predict».

import { el, renderText } from "./dom.js";
import { showFocusCell } from "./table.js";
import { say } from "./text.js";

// A question whose answer (computed in Python) is revealed once the reader
// picks. What the reader picked is page state, kept per question id.
// A question may hide what would answer it (data-hides, a CSS selector): those
// elements stay veiled and inert until the reader picks, or chooses to look
// without predicting. Either opens them for the rest of the visit: a question
// answered stays answered (the next state's question may still be answered,
// but what it hides is in view), across changes and reloads of the tab
// (sessionStorage). A teacher's view (the state's respuestas, which the
// screen marks as <html data-answers="shown">) opens them all and keeps
// nothing.
const STORE = `lab-answers:${document.body.dataset.lab}`;
const teacher = () => document.documentElement.dataset.answers === "shown";
const picked = new Map();
const unveiled = new Set(); // data-hides opened by an answer or a look
const skipped = new Set(); // those opened by «Mostrar sin predecir»
restore();

function restore() {
  try {
    const saved = JSON.parse(sessionStorage.getItem(STORE) || "null");
    if (!saved) return;
    for (const [id, value] of saved.picked) picked.set(id, value);
    for (const hides of saved.unveiled) unveiled.add(hides);
    for (const hides of saved.skipped) skipped.add(hides);
  } catch {
    // no storage (a sandboxed frame) or an old shape: the visit starts afresh
  }
}

function keep() {
  try {
    sessionStorage.setItem(STORE, JSON.stringify({
      picked: [...picked], unveiled: [...unveiled], skipped: [...skipped],
    }));
  } catch {
    // no storage: answers last until the page is left
  }
}

// What an answer opened, brought into view when it ends below the screen
// (the verdict above it grew): the reader looks from the answer to the
// result without scrolling.
function showOpened(node) {
  const panel = node.closest("section.panel") || document;
  const first = panel.querySelector(node.dataset.hides);
  if (!first) return;
  if (first.getBoundingClientRect().bottom > innerHeight) {
    const smooth = !matchMedia("(prefers-reduced-motion: reduce)").matches;
    first.scrollIntoView({ block: "nearest", behavior: smooth ? "smooth" : "auto" });
  }
}

/** Whether what a question hides is open to the reader (answered, looked
 *  at, or a teacher's view). */
export function isOpen(node) {
  return teacher() || Boolean(node.dataset.hides && unveiled.has(node.dataset.hides));
}

export function renderPredict(node, prompt) {
  // Rebuilt when its words change too (the head named in the question).
  const words = JSON.stringify([prompt.id, prompt.question, prompt.options]);
  if (node.promptWords !== words) {
    node.dataset.prompt = prompt.id;
    node.promptWords = words;
    const options = el("div", undefined, "predict-options");
    for (const option of prompt.options) {
      const button = el("button", option.label);
      button.type = "button";
      button.dataset.value = String(option.value);
      button.addEventListener("click", () => {
        picked.set(node.currentPrompt.id, String(option.value));
        const opening = node.dataset.hides && !unveiled.has(node.dataset.hides);
        if (node.dataset.hides) unveiled.add(node.dataset.hides);
        keep();
        revealPrediction(node, node.currentPrompt); // the latest answers and explanation
        if (opening) showOpened(node);
      });
      options.append(button);
    }
    const parts = [el("p", say(node.dataset.kicker || "predict.kicker"), "predict-kicker"),
      el("p", prompt.question, "predict-question"), options];
    if (node.dataset.hides) {
      const skip = el("button", say("predict.skip"), "predict-skip");
      skip.type = "button";
      skip.addEventListener("click", () => {
        // This button hides, and the question now gives its answer in its
        // place: focus goes there, and the page stays where the reader is
        // (it used to jump to what the question hid, and took the answer
        // above the screen). What was hidden follows the question.
        look(node);
        const verdict = node.querySelector(".predict-verdict");
        verdict.tabIndex = -1;
        verdict.focus({ preventScroll: true });
        if (verdict.getBoundingClientRect().bottom > innerHeight) verdict.scrollIntoView({ block: "nearest" });
      });
      parts.push(skip);
    }
    const verdict = el("p", undefined, "predict-verdict");
    verdict.setAttribute("aria-live", "polite"); // said when the reader answers
    parts.push(verdict, el("p", undefined, "predict-answer"));
    node.replaceChildren(...parts);
  }
  node.currentPrompt = prompt;
  revealPrediction(node, prompt);
  // On paper (lab.css shows it only in print): the options, and the answer
  // with its explanation, whether or not the reader picked.
  renderText(node.querySelector(".predict-answer"), prompt.printed);
}

// Whether an option's value (as text: a button's data-value) is right.
function isAnswer(prompt, value) {
  return prompt.answers.some((answer) => String(answer) === value);
}

// The right answers marked (not by colour alone: an outline and the
// verdict's words), and the link to what explains them shown.
function markAnswers(node, prompt) {
  for (const button of node.querySelectorAll(".predict-options button")) {
    button.classList.toggle("correct", isAnswer(prompt, button.dataset.value));
  }
  const why = node.parentElement && node.parentElement.querySelector(".why-link");
  if (why) why.hidden = false;
}

function revealPrediction(node, prompt) {
  const choice = picked.get(prompt.id);
  const verdict = node.querySelector(".predict-verdict");
  for (const button of node.querySelectorAll(".predict-options button")) {
    button.setAttribute("aria-pressed", String(button.dataset.value === choice));
  }
  const open = teacher() || unveiled.has(node.dataset.hides);
  if (choice === undefined && (teacher() || skipped.has(node.dataset.hides))) {
    // A teacher's view, or seen without predicting: what it hides is open,
    // so the question gives its answer too, rather than ask what the page
    // already shows.
    verdict.textContent = say(teacher() ? "predict.teacher" : "predict.skipped", prompt);
    node.dataset.revealed = "skipped";
    markAnswers(node, prompt);
  } else if (choice === undefined) {
    // Unanswered. If the reader answered this part's question for another
    // state, what it hides stays in view: they may predict again or look.
    verdict.textContent = open ? say("predict.again") : "";
    node.dataset.revealed = open ? "open" : "false";
    for (const button of node.querySelectorAll(".predict-options button")) button.classList.remove("correct");
  } else {
    const right = isAnswer(prompt, choice);
    verdict.textContent = say(right ? "predict.right" : "predict.wrong", prompt);
    node.dataset.revealed = right ? "right" : "wrong";
    markAnswers(node, prompt);
  }
  if (node.dataset.hides) applyVeil(node);
}

// Veil (or unveil) what a question hides, all of it in the question's own
// panel (a unit test checks). A closed veil is laid again whenever that panel
// is drawn, since tables may be rebuilt; an open one is lifted once.
export function applyVeil(node) {
  const open = teacher() || unveiled.has(node.dataset.hides);
  const panel = node.closest("section.panel") || document;
  for (const target of panel.querySelectorAll(node.dataset.hides)) { // some are drawn
    if (target.classList.contains("veiled") === open) {
      target.classList.toggle("veiled", !open);
      // A wide table's box scrolls: its cover stays at the start, and the
      // marked cell is brought into view once the answer shows.
      if (open) requestAnimationFrame(() => showFocusCell(target));
      else target.scrollLeft = 0;
    }
    if (target.inert === open) target.inert = !open;
  }
  const skip = node.querySelector(".predict-skip"); // a question rebuilt has a new one
  if (skip) skip.hidden = open;
}

/** Lift a question's veil without answering it, and without moving the page
 *  (what «Mostrar sin predecir» does before it moves focus there). */
export function look(question) {
  if (!question.dataset.hides) return;
  unveiled.add(question.dataset.hides);
  skipped.add(question.dataset.hides);
  keep();
  applyVeil(question);
  if (question.currentPrompt) revealPrediction(question, question.currentPrompt);
}

/** Forget every answer given and every answer seen without predicting: each
 *  question asks again and veils what it hides (lab.reset). */
export function forgetAnswers() {
  picked.clear();
  unveiled.clear();
  skipped.clear();
  keep();
  refreshQuestions();
}

/** Every question drawn again from what is known (answers forgotten, or the
 *  teacher's view switched on or off). */
export function refreshQuestions() {
  for (const node of document.querySelectorAll(".predict[data-render]")) {
    if (node.currentPrompt) revealPrediction(node, node.currentPrompt);
    else if (node.dataset.hides) applyVeil(node);
  }
}
