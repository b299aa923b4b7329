// The questions that ask the reader to predict before they look (panels 1,
// 4, 5, 7 and 8; the block page's quiz): drawn from the view's prompt
// ({id, question, options, answers, explanation}, lab_core/views.py), with
// what a question hides veiled until the reader answers or chooses to look
// without predicting. render.js draws them as the renderer «predict».

import { el, renderText } from "./dom.js";
import { say } from "./text.js";

// A question whose answer (computed in Python) is revealed once the reader
// picks. What the reader picked is page state, kept per question id.
// A question may hide what would answer it (data-hides, a CSS selector): those
// elements stay veiled and inert until the reader picks, or chooses to look
// without predicting. A pick opens them for that question (the next one
// hides them again); looking without predicting opens them for good.
const picked = new Map();
const unveiled = new Set();
const skipped = new Set(); // the questions (data-hides) the reader chose to see without predicting

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
        revealPrediction(node, node.currentPrompt); // the latest answers and explanation
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
  if (choice === undefined && skipped.has(node.dataset.hides)) {
    // Seen without predicting: what it showed is open, so the question
    // gives its answer too, rather than ask what the page already shows.
    verdict.textContent = say("predict.skipped", prompt);
    node.dataset.revealed = "skipped";
    markAnswers(node, prompt);
    return;
  }
  if (choice === undefined) {
    verdict.textContent = "";
    node.dataset.revealed = "false";
    for (const button of node.querySelectorAll(".predict-options button")) button.classList.remove("correct");
    if (unveiled.has(node.dataset.hides) && !skipped.has(node.dataset.hides)) {
      // A new question after the reader answered the last one: its answer
      // is hidden again until they answer this one too (it had stood in
      // view under «Predice antes de mirar»). Only «Mostrar sin predecir»
      // opens the part for good. A focus inside what is hidden goes to the
      // question (a row picked in the weights' table asks a new one).
      unveiled.delete(node.dataset.hides);
      liftedVeils.delete(node);
      const panel = node.closest("section.panel") || document;
      const focused = [...panel.querySelectorAll(node.dataset.hides)]
        .some((target) => target.contains(document.activeElement));
      applyVeil(node);
      if (focused) node.querySelector(".predict-options button").focus({ preventScroll: true });
    }
    return;
  }
  const right = isAnswer(prompt, choice);
  verdict.textContent = say(right ? "predict.right" : "predict.wrong", prompt);
  node.dataset.revealed = right ? "right" : "wrong";
  markAnswers(node, prompt);
  if (node.dataset.hides) {
    unveiled.add(node.dataset.hides);
    applyVeil(node);
  }
}

// Veil (or unveil) what a question hides, all of it in the question's own
// panel (a unit test checks). A closed veil is laid again whenever that panel
// is drawn, since tables may be rebuilt; an open one is lifted once.
let liftedVeils = new WeakSet(); // questions whose veil is lifted

export function applyVeil(node) {
  const open = unveiled.has(node.dataset.hides);
  if (!(open && liftedVeils.has(node))) {
    const panel = node.closest("section.panel") || document;
    for (const target of panel.querySelectorAll(node.dataset.hides)) { // some are drawn
      target.classList.toggle("veiled", !open);
      target.inert = !open;
    }
    if (open) liftedVeils.add(node);
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
  applyVeil(question);
  if (question.currentPrompt) revealPrediction(question, question.currentPrompt);
}

/** Forget every answer given and every answer seen without predicting: each
 *  question asks again and veils what it hides (lab.reset). */
export function forgetAnswers() {
  picked.clear();
  unveiled.clear();
  skipped.clear();
  liftedVeils = new WeakSet();
  for (const node of document.querySelectorAll(".predict[data-render]")) {
    if (node.currentPrompt) revealPrediction(node, node.currentPrompt);
    if (node.dataset.hides) applyVeil(node);
  }
}
