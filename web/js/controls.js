// The page's buttons wired to lab.set: the actions (data-action), the panel
// links, the sentence builder and vector editor, and the training player;
// and the place beside each control where a value Python refuses is said
// (showError). Fields and sliders are fields.js's, the grids grid.js's.
// Every control only ever sends a partial state through lab.set.

import { isOpen } from "./predict.js";
import { confirmNear } from "./share.js";
import { shuffled } from "./shuffle.js";
import { say } from "./text.js";

// {set, settled() (every change applied and drawn), state() (the state the
//  page is heading to), view(), announce(text), notices(list) (the page's
//  notices: [] clears them)}
let lab = null;

export function wire(hooks) {
  lab = hooks;
  document.addEventListener("click", onPanelLink);
  document.addEventListener("click", onSkipLink);
  document.addEventListener("click", onAction);
  document.addEventListener("click", onEditor);
  document.addEventListener("change", onVector);
  document.addEventListener("change", onSentenceChange);
  document.addEventListener("submit", onSentenceSubmit);
  document.addEventListener("keydown", onSentenceKey);
}

// A typed sentence: its text goes to Python as it is (Python reads it into
// words, or says what is wrong beside the field), on «change» (Enter, or
// leaving the field) or on the form's submit («Usar», a phone keyboard's
// key), once while it is on its way (Enter fires both). Once read, the
// field shows the words Python read («¿El banco, junto al río?» -> «El
// banco junto al río»). Forgotten once answered: the same text typed again
// after a suggestion or a pick replaced it is sent again.
function sendSentence(input) {
  const key = input.dataset.key;
  // What Python read the field's words as: the view field it names.
  const shown = (view) => input.dataset.valueFrom.split(".").reduce((value, part) => value[part], view);
  if (!lab.view() || input.dataset.sent === input.value || input.value === shown(lab.view())) return;
  input.dataset.sent = input.value;
  const answered = () => { delete input.dataset.sent; };
  lab.set({ [key]: input.value }).then(() => {
    const read = shown(lab.view());
    if (input.value !== read) input.value = read;
    answered();
  }, answered);
}

function onSentenceChange(event) {
  const input = event.target.closest("[data-sentence-field]");
  if (input) sendSentence(input);
}

// A sentence field is a textarea so that a long sentence wraps on a phone
// instead of hiding its end; Enter still sends it, as a one-line field's
// would, and never writes a line break.
function onSentenceKey(event) {
  if (event.key !== "Enter" || event.isComposing || event.shiftKey) return;
  const field = event.target.closest && event.target.closest("textarea[data-sentence-field]");
  if (!field) return;
  event.preventDefault();
  field.form.requestSubmit();
}

function onSentenceSubmit(event) {
  const form = event.target.closest("form[data-sentence-form]");
  if (!form) return;
  event.preventDefault();
  const input = form.querySelector("[data-sentence-field]");
  if (input) sendSentence(input);
}

// ------------------------------------------------------- the reader's input

// A sentence as chips: move a word, remove it, add one; the new list goes
// to Python, which checks it. Focus follows the word that moved.
const BUILD = {
  left: (list, i) => [swap(list, i - 1, i), i - 1],
  right: (list, i) => [swap(list, i, i + 1), i + 1],
  remove: (list, i) => [list.filter((_, j) => j !== i), Math.max(0, i - 1)],
};

function swap(list, a, b) {
  const out = [...list];
  [out[a], out[b]] = [out[b], out[a]];
  return out;
}

// The words of a sentence the reader is building: a change still on its way
// to Python counts (lab.state() is the state the page is heading to).
function wordsOf(target) {
  const heading = lab.state() && lab.state()[target];
  if (Array.isArray(heading) && heading.length) return [...heading];
  return lab.view().builder[target === "tokens" ? "words" : "other_words"].map((item) => item.word);
}

function refocus(target, index, action) {
  const selector = `[data-target="${target}"][data-index="${index}"]`;
  const button = document.querySelector(`${selector}[data-builder="${action}"]:not(:disabled)`) ||
    document.querySelector(`${selector}[data-builder]:not(:disabled)`);
  if (button) button.focus();
}

function onEditor(event) {
  const chip = event.target.closest("button[data-builder]");
  if (chip && lab.view()) {
    const target = chip.dataset.target;
    const [list, next] = BUILD[chip.dataset.builder](wordsOf(target), Number(chip.dataset.index));
    lab.set({ [target]: list }).then(() => refocus(target, next, chip.dataset.builder)).catch(() => {});
    return;
  }
  const add = event.target.closest("button[data-builder-add]");
  if (add && lab.view()) {
    const target = add.dataset.builderAdd;
    const word = document.getElementById(`add-${target}`).value;
    lab.set({ [target]: [...wordsOf(target), word] }).catch(() => {});
    return;
  }
  const fix = event.target.closest("button[data-sentence-fix]");
  if (fix && lab.view()) {
    const target = fix.dataset.sentenceFix;
    const suggested = lab.view().builder[target === "tokens" ? "fix" : "other_fix"];
    // The button goes once the words are known: focus goes back to the field.
    if (suggested) {
      lab.set({ [target]: suggested.tokens }).then(() => {
        const field = document.querySelector(`[data-sentence-field][data-key="${target}"]`);
        if (field && (document.activeElement === fix || document.activeElement === document.body)) field.focus();
      }, () => {});
    }
    return;
  }
  const back = event.target.closest("button[data-builder-reset]");
  if (back) {
    lab.set({ [back.dataset.builderReset]: [] }).catch(() => {});
    return;
  }
  const reset = event.target.closest("button[data-vec-reset]");
  if (reset && lab.state()) {
    const head = `${reset.dataset.vecReset}.`;
    const kept = Object.fromEntries(Object.entries(lab.state().vec).filter(([name]) => !name.startsWith(head)));
    // The button turns off once nothing is left to reset: focus goes to the
    // table's first field, not to the page's start.
    lab.set({ vec: kept }).then(() => {
      if (document.activeElement === reset || document.activeElement === document.body) {
        const field = reset.parentElement.querySelector("input[data-vec]");
        if (field) field.focus();
      }
    }, () => {});
  }
}

// Editing a vector: both coordinates go together, as typed (a decimal
// comma is fine); a refused value stays in its field, marked, with the
// message beside the table.
function onVector(event) {
  const input = event.target.closest("input[data-vec]");
  if (!input || !lab.state()) return;
  const name = input.dataset.vec;
  const pair = [0, 1].map((i) => document.querySelector(`input[data-vec="${name}"][data-index="${i}"]`).value);
  lab.set({ vec: { ...lab.state().vec, [name]: pair } }).catch(() => markInvalid(input));
}

function onPanelLink(event) {
  const link = event.target.closest("a[data-panel]");
  if (!link) return;
  // A panel is state like any other: going to it replaces the page's
  // history entry rather than adding one, so «atrás» leaves the page as it
  // does after any change (an entry per panel left the address and the
  // screen apart). A click that opens a new tab is the browser's.
  if (event.button === 0 && !event.ctrlKey && !event.metaKey && !event.shiftKey && !event.altKey) {
    event.preventDefault();
    location.replace(`#${link.dataset.panel}`); // a map's part is an SVG link: no .hash
  }
  focusHeading(document.getElementById(link.dataset.panel));
  lab.set({ panel: link.dataset.panel }).catch(() => {});
}

// A link within the page takes the keyboard there too: focus on the
// section's heading, so that the next Tab goes on from it, not from the top.
function focusHeading(section) {
  const heading = section && section.querySelector("h2");
  if (!heading) return;
  heading.tabIndex = -1;
  heading.focus({ preventScroll: true });
}

function onSkipLink(event) {
  const link = event.target.closest("a.skip-link:not([data-panel])");
  if (!link) return;
  event.preventDefault();
  const section = document.querySelector(link.hash);
  section.scrollIntoView();
  focusHeading(section);
}

// Buttons with data-action send one of these partial states (or, for
// page-only actions, do their work and return null).
const ACTIONS = {
  "notices-close": () => {
    lab.notices([]);
    return null;
  },
  // The article's exercise, as Python states it (with the article's
  // vectors back when the reader edited them).
  "exercise-go": () => lab.view().exercise.go,
  "step-prev": () => ({ step: lab.state().step - 1 }),
  "step-next": () => ({ step: lab.state().step + 1 }),
  "order-original": () => ({ order: lab.state().order.map((_, i) => i) }),
  "order-swap": () => ({ order: lab.view().order.swapped }),
  "order-shuffle": () => ({ order: shuffled(lab.state().order) }),
  // The γ and β that undo the normalisation, as Python computed them.
  "ln-undo": () => ({ gamma: lab.view().layernorm.undo.gamma, beta: lab.view().layernorm.undo.beta }),
  "ln-reset": () => ({ gamma: 1, beta: 0 }),
  // The players (panel 8's «Reproducir», the model page's «Entrenar»): each
  // button names the step key it moves (data-play).
  "play": (button) => {
    play(button);
    return null;
  },
  "play-prev": (button) => ({ [button.dataset.play]: Math.max(0, lab.state()[button.dataset.play] - 1) }),
  "play-next": (button) => ({ [button.dataset.play]: Math.min(lastStep(button.dataset.play), lab.state()[button.dataset.play] + 1) }),
  "play-reset": (button) => {
    stopPlaying();
    return { [button.dataset.play]: 0 };
  },
  // A sentence offered as a button: its text is the value (Python wrote both).
  "use-text": (button) => ({ [button.dataset.target]: button.textContent }),
};

// After an action, what the reader should look at: the exercise's result.
const AFTER = {
  "exercise-go": () => {
    // The exercise's score, 1,41, is in view and flashed. Its weights stay
    // under panel 1's question until the reader predicts (or chooses to
    // look): preparing the exercise is not answering it.
    const cells = [...document.querySelectorAll("#score-tables td.focus")].filter((cell) => !cell.closest(".veiled"));
    if (!cells.length) return;
    const smooth = !matchMedia("(prefers-reduced-motion: reduce)").matches;
    cells[0].scrollIntoView({ block: "center", behavior: smooth ? "smooth" : "auto" });
    // The keyboard goes on from the cell, not from the button far above it
    // (the grid's cells take focus; the scroll above is the page's own).
    const grid = document.querySelector("#score-tables [role='grid'] td.focus");
    if (grid) grid.focus({ preventScroll: true });
    for (const cell of cells) {
      cell.classList.remove("flash");
      void cell.offsetWidth; // restart the animation
      cell.classList.add("flash");
    }
    const { arithmetic } = lab.view();
    const block = arithmetic.blocks[0];
    const veiled = document.querySelector("#puntuacion .weights-wrap.veiled");
    lab.announce(say(veiled ? "exercise.veiled" : "exercise.ready",
      { query: arithmetic.query, key: arithmetic.key, score: block.score, weight: block.weight }));
  },
};

function onAction(event) {
  const button = event.target.closest("button[data-action]");
  if (!button) return;
  const action = ACTIONS[button.dataset.action];
  if (!action) throw new Error(`no action "${button.dataset.action}"`);
  const partial = action(button);
  const after = AFTER[button.dataset.action] || (button.dataset.shows && (() => showResult(button)));
  // What follows a change (a scroll to a cell, a flash) waits until every
  // panel shows it: one off screen is drawn a moment after the change.
  if (partial) lab.set(partial).then(() => after && lab.settled().then(after)).catch(() => {});
}

// A button whose result is elsewhere in its panel (data-shows: that
// element's id): once drawn, the result is brought just into view if the
// screen does not show it (on a phone it can sit below the fold).
function showResult(button) {
  const result = document.getElementById(button.dataset.shows);
  if (!result) return;
  const box = result.getBoundingClientRect();
  if (box.top >= 0 && box.bottom <= innerHeight) return;
  const smooth = !matchMedia("(prefers-reduced-motion: reduce)").matches;
  result.scrollIntoView({ block: "nearest", behavior: smooth ? "smooth" : "auto" });
}

// ------------------------------------------------------------ the player

// A player raises its step key (data-play) a stride at a time, the next
// request sent once the last reply is drawn: panel 8 walks a cached
// trajectory at a readable pace (data-play-stride="4", data-play-every="60"),
// the model page trains as fast as the worker steps (a larger stride, no
// pause). With reduced motion it takes a few large steps instead of many
// small ones. Its label (data-play-label, a page_text key) becomes «Pausa»
// while it plays; the key's last step is its control's maximum.
const CALM = { stride: 100, every: 1000 };
let playing = null;

function lastStep(key) {
  return lab.view().controls[key].max;
}

function play(button) {
  if (playing) {
    stopPlaying();
    return;
  }
  // Watching would answer the panel's question: it is asked first.
  const question = button.closest("section.panel").querySelector(".predict[data-hides]");
  if (question && !isOpen(question)) {
    const first = question.querySelector(".predict-options button");
    if (first) first.focus();
    question.scrollIntoView({ block: "nearest" });
    confirmNear(button, say("play.ask"));
    return;
  }
  const key = button.dataset.play;
  const calm = matchMedia("(prefers-reduced-motion: reduce)").matches;
  const stride = Math.max(Number(button.dataset.playStride), calm ? CALM.stride : 0);
  const pause = calm ? CALM.every : Number(button.dataset.playEvery);
  const last = lastStep(key);
  let step = lab.state()[key] >= last ? 0 : lab.state()[key];
  playing = { button };
  button.textContent = say("pause");
  button.setAttribute("aria-pressed", "true");
  // A first, shorter stride (data-play-first) answers the press within a
  // moment; later strides land on multiples of the stride (the model's
  // held-out loss is measured there, so a view never computes it again).
  let first = Number(button.dataset.playFirst) || 0;
  const tick = () => {
    if (!playing) return;
    step = Math.min(last, first ? step + first : (Math.floor(step / stride) + 1) * stride);
    first = 0;
    lab.set({ [key]: step }).then(() => {
      if (!playing) return;
      if (step >= last) stopPlaying();
      else playing.timer = setTimeout(tick, pause);
    }, stopPlaying);
  };
  playing.timer = setTimeout(tick, pause);
}

function stopPlaying() {
  if (!playing) return;
  clearTimeout(playing.timer);
  playing.button.textContent = say(playing.button.dataset.playLabel);
  playing.button.setAttribute("aria-pressed", "false");
  playing = null;
}

// ------------------------------------------------------- errors by control

// A rejected value's message goes beside its control when the page has a
// place for it (and the control is marked invalid), else into the notices.
// What holds one is kept, so that clearing (on every change Python applies)
// touches only that, and searches no page.
const holding = new Set();

function markInvalid(input) {
  input.setAttribute("aria-invalid", "true");
  holding.add(input);
}

export function showError(result) {
  const spot = result.key && document.querySelector(`[data-error-for="${CSS.escape(result.key)}"]`);
  if (!spot) {
    lab.notices([say("set.refused", { error: result.error })]);
    return;
  }
  spot.textContent = say("set.error", { error: result.error });
  // A message in a closed part (the vector editor's, for a value set by a
  // link or lab.set) opens it: a message nobody can see says nothing.
  for (let more = spot.closest("details:not([open])"); more; more = more.closest("details:not([open])")) {
    more.open = true;
  }
  holding.add(spot);
  for (const input of document.querySelectorAll(`[data-key="${CSS.escape(result.key)}"]`)) markInvalid(input);
  const field = document.activeElement;
  keepInView(spot, field && field.matches("input, select, textarea") ? field : null);
}

// The message on screen, and the field typed in never under it: the vector
// editor's message sticks to the bottom of the screen, where the field the
// reader just left may be.
function keepInView(spot, field) {
  let box = spot.getBoundingClientRect();
  if (box.bottom > innerHeight || box.top < 0) {
    spot.scrollIntoView({ block: "nearest" });
    box = spot.getBoundingClientRect();
  }
  if (!field) return;
  const at = field.getBoundingClientRect();
  if (at.bottom > box.top && at.top < box.bottom) scrollBy(0, at.bottom - box.top + 8);
}

export function clearErrors() {
  for (const element of holding) {
    if (element.hasAttribute("data-error-for")) element.textContent = "";
    else element.removeAttribute("aria-invalid");
  }
  holding.clear();
}
