"""The view contract: a lab state in, one JSON-ready dict out.

The page sends a request to `handle()` and draws the view it gets back; JS
never computes a number. Each lab (one per article) is a `lab.Lab`: a `Spec`
of state keys, a table of panels, and `build_view(state)`; `LABS` maps the
lab's name to the package that declares it as `LAB`.

Reply envelope (answer() builds it, handle() serialises it)
-----------------------------------------------------------
{"ok": true, "view": view} or {"ok": false, "error": message, "key": key}, where
key names the state key whose control should show the message (or null).
A request may also name the view the page holds ("base": n, a "view_id" of
an earlier reply): see Conversation, which the browser uses. Its replies
carry "view_id", and "base" when the view holds only the keys that changed.
The page's first request ("from": "url") may carry the prepared view it
shows ("prepared": view); Conversation adopts it when it is the URL's state,
and replies {"ok": true, "adopted": true, "view_id": n, "view": what differs}.
An export ({"from": "export", "state": state, "table": table id}) replies
{"ok": true, "export": {"id", "caption", "filename", "csv", "markdown",
"latex"}}: the table with the texts as shown (lab_core/export.py).
A batch ("partials": a list of partial states, applied in order) replies
{"ok": true, "view": view | null, "results": [{"ok": true} | {"ok": false,
"error", "key"}]}: one result per partial, one view for the final state
(null when no partial applied).

Common view keys (every lab)
----------------------------
lab       the lab's name ("attention", "block" or "model").
contract  the version of this contract (CONTRACT_VERSION).
state     the normalised state; the page adopts it as is.
query_string  the state's URL form (only keys that differ from the default;
          "" for the default state); the page mirrors it into location.search.
notices   list of str: what was ignored from the URL, for the user.
controls  key -> {"label", "options": [{"value", "label"}]} for choices, or
          {"label", "min", "max", "step"} for numbers, with "off": bool where
          the state can make the number moot (the page turns the field off).
fields    key -> {"text", "raw", "up", "down"} for every number field: the
          text the field shows (Spanish, "0,5"), its slider form ("0.5"), and
          the values ↑ and ↓ send (null at a bound); for a vector, each is a
          list with one entry per coordinate (up and down: whole vectors).
          The page formats no number itself.

Tables, wherever they appear:
  {"id", "caption", "corner", "columns": [str],
   "rows": [{"label": str, "selected": bool, "cells": [cell]}], "note": str | null}
  "note" says, in plain words, where the table's rounded numbers do not add
  up as read (each is its own rounding: display.py); null when they do.
  cell = {"value": float | null, "text": str, "masked": bool, ...flags}.
  A masked score travels as value null with text "−∞": JSON has no
  infinity, and json.dumps(allow_nan=False) refuses to invent one.

Prediction prompts, wherever they appear:
  {"id", "question", "options": [{"value", "label"}], "answers": [value],
   "explanation", "printed"}; the page reveals the answer once the reader picks.
  "explanation" is the whole answer: it names the right option first, then
  why; the page adds no words of its own to it. "printed": what paper shows
  in the question's place (its options, then the explanation).

state_line  the state as a reader says it («Frase: El banco del parque ·
            Consulta: banco · …»), printed on paper with the link.
announce    {state key: sentence}: what a screen reader hears after a change
            of that key (the page's polite live region).

Attention lab ("attention", lab_core/attention_lab/)
------------------------------------------------------
builder     the reader's sentences, typed or built: {"words",
            "other_words": [{"index", "word", "label", "known", "group"}],
            "text", "other_text" (the sentence as its field shows it),
            "count", "other_count", "full", "other_full", "single",
            "other_single", "notice", "other_notice" (the words the lab does
            not know, and near misses), "fix", "other_fix" (the button
            that puts the suggestions in: {"label", "tokens"}, or None)}.
exercise    where the state stands on the article's exercise (the list of
            steps in index.html): {"query", "mask", "head"}, each «(ya
            elegida)» or what is chosen instead («(ahora: causal)»), and
            "go": the partial state «Preparar el ejercicio» sends.
clues       what each word head finds for the query under both masks:
            {"title", "heads": [one sentence per word head], "lesson"}.
vocabulary  the words the lab knows: {"title", "groups": [{"label", "rule"
            (the vectors its words take), "words"}]}.
vectors     the vector editor: {"tables": [{"head", "label", "caption",
            "edited" (how many of its vectors), "picker" (its button's words
            when several heads show), "rows": [{"word", "cells": [{"name",
            "role", "x", "y", "edited", "label", "original"}]}]}], "edited",
            "note"}: word heads only, one row per known word of the sentence.
learning    panel 8, a head trained twice (attention_lab/aprende.py): {"step",
            "table" (loss and accuracies per mask), "chart" (both losses),
            "weights" (tables of banco's attention), "views" (head views),
            "vectors": {"q", "text", "table"}, "verdict", "stopped" [str],
            "corpus", "predict"}.
sentence    {"id" (a preset, or "propia"), "label", "tokens", "own", "other",
            "other_tokens", "other_own", "exercise" (a note when the
            exercise's steps are not about the sentence shown, or "")}: the
            sentence shown and the one comparisons use (the reader's own, or
            the presets).
head        {"id", "label", "summary"}.
headview    attention as lines between words (pictures.attention_lines): {"caption",
            "words", "labels": {"q", "k": [str]} (each word's button, said),
            "query", "heads": [{"id", "label", "style"}], "links": [{"head",
            "from", "to", "weight", "text"}], "alt"}.
tables      list, one per shown head: {"head", "scores", "weights"}; captions
            "Puntuaciones" and "Pesos" (suffixed with the head with head="all").
arithmetic  {"query", "key", "blocks": [{"head", "q", "k", "expression",
            "score", "weight", "masked", "why", "softmax": table}], "predict"}.
scaling     {"dk", "table", "example" (tables), "verdict", "sample", "said" (for
            the live region)}: why the scores are divided by √d_k, measured on
            random vectors (scaling.py).
mixture     {"blocks": [{"head", "out", "d_v", "table", "copies" (when the query's word
            appears more than once: whether its copies get the same mixture, and why;
            else "")}],
            "vocab": {"query", "best" (the winner, or the tie, with its value), "table"}}.
heads       {"heads": [{"id", "label", "summary", "axes", "table"}],
            "combine": null | {"shapes": [str], "concat": table, "output": table,
            "sums" (the query row's output worked out from the concatenation)}}.
mask        {"open", "closed", "table", "predict"}; cells carry "diagonal".
rope        {"theta", "angle_q", "angle_k", "q", "k", "q_m",
            "k_n", "score", "equals" (the score with «=» or «≈»), "plain_score", "chart", "offset" (signed n − m), "sign" (what
            the sign of the offset changes), "norms", "drawing": {"extent",
            "label" (its text alternative), "vectors": [{"name", "x", "y",
            "role", "moved", "null"}]}, "table", "predict"}.
training    {"table", "chart" (both null for a one-word sentence), "has_loss",
            "pairs" (which output is compared with which word), "summary" (both
            masks' mean losses and the positions the open mask helps or hurts)}.
cache       {"step", "new_token", "heads", "cache", "counts" (projections, q·k
            products and cached numbers per step), "tradeoff" (what the cache
            saves, what it does not, what it holds), "check": {"max_diff", "exact"},
            "prefix": {"position", "query", "sentence", "other", "other_query",
            "mine", "theirs", "same", "text" (the two outputs, said), "verdict"},
            "drift": {"causal", "bidirectional", "appended", "verdict"}, "predict"}.
generation  {"sentence" (the prompt and the words generated), "new", "summary",
            "table" (one row per step: the word in, the likeliest next words, the
            one chosen, the cache's rows)}.

Block lab ("block", lab_core/block_lab/)
------------------------------------------
order       {"original", "permuted", "weights", "weights_permuted" (tables),
            "views" (head views of both orders), "pair": {"a", "b"},
            "weights_gap", "out_gap", "pe_gap", "pe_differs",
            "changed" (false when the order is the original), "summary", "pe",
            "shown" ("original" | "swap" | "other": which of the two sentences,
            for the pressed button), "swapped" (the order «swap» asks for)}.
position    {"heatmap": {"rows", "cols", "values" [rows][cols] (integers: each
            value times "scale"), "scale", "label"},
            "wavelengths" (table), "waves" (fastest and slowest wave), "limit" (where
            the slowest goes as d_model grows),
            "shift": {"k", "error", "sine_only" (the best sine-only map's error
            from position 1 on), "zero" (its error at position 0), "verdict"}}.
residual    {"depth", "chart", "scale" (the log axis's caption: the ticks' step),
            "layers" ("12 capas"), "table", "plain", "residual", "summary"}.
layernorm   {"x", "mean", "var", "normalized", "gamma", "beta", "out",
            "out_mean", "out_std", "undo": {"gamma", "beta" (numbers: the values
            that give x back), "sentence"}, "growth" (table, from the input on),
            "growth_summary", "growth_chart", "stability" (table: the last
            layer's gradient at initialisation, post-norm and pre-norm, per
            depth), "stability_summary", "stability_chart"}.
ffn         {"d_model", "d_ff", "ratio", "demo" (the fixed FFN the checks use:
            "d_model = 8 → d_ff = 32 → d_model = 8"), "plot": {"x", "series": [{"name", "y"}]},
            "gelu_at", "collapse": {"error", "shape_a", "verdict"},
            "locality": {"ffn3", "ffn5", "attn5", "verdict"}}.
block       {"shape_in", "shape_out", "check", "real", "note", "d_k",
            "params": {"headers", "rows", "note", "shares"} (in Spanish, as the page
            shows it), "published" (what the article's own cell publishes on
            window.py_table_data: English headers, "1,048,576", "33.3%"),
            "table", "ffn_share", "share_sentence"}.
quiz        [{"id", "question", "options", "answers", "explanation", "panel",
            "panel_label"}]: prediction prompts with a link to their panel.

Model lab ("model", lab_core/model_lab/): the capstone
--------------------------------------------------------
choices     {"sentences" (one held-out sentence of each kind), "prompts"
            (held-out beginnings), "vocabulary"}: what the page offers as buttons.
model       {"params" (table: each piece's shapes and count, and the total),
            "size", "corpus", "kinds": [{"label", "count", "example", "held"}],
            "bound" (the grammar's own loss, and why no model goes below it),
            "vocabulary", "batch"}.
training    {"step" ("Paso 600 de 3000"), "status", "table" (the lesson's
            figures at this step, one column per mask), "chart" (log loss per
            step: training means of 25 steps, held-out points, the grammar's
            line), "stopped" [str]: a run that diverged, from where it stopped}.
heads       {"words" (the sentence as read), "where" (training, held out, of the
            grammar or not), "blocks": [{"title", "view" (head view: both heads),
            "tables": [table per head]}], "rule" (when a head is named),
            "patterns" [str per head], "previous" (causal, no head on the
            word before: what that word is worth in the grammar; else "")}.
generation  {"prompt" (as read), "allowed" (the grammar's next words), "how",
            "runs": [{"mask", "text", "new", "table", "cache", "verdict", "ok"}]}.
lesson      {"table" (training loss and share continued well, per mask),
            "verdict", "bound", "prompts" (what the beginnings are, counted)}.

Charts (pictures.chart), wherever they appear ("chart", "growth_chart"):
  {"title", "kind" ("line" | "bars"), "x", "y": {"min", "max", "log", "label",
   "ticks": [{"value", "label"}], and on a log axis "scale" (its caption)},
   "series": [{"name", "style", "dash", "dots" (values only at the points: each
   drawn), "points": [[x, y]]}], "marker": null | {"x", "y", "label"}, "alt"};
  plot coordinates (log10 on a log axis): the page only maps them to pixels.

Measured differences that should vanish read "< 10⁻¹²" (display.fmt_error).
Every sentence that states a conclusion is built from the numbers it talks
about, in the builder that computes them (lab_core/words.py).
"""
from __future__ import annotations

import importlib
import json

from .display import fmt_short
from .export import export_table
from .state import StateError, query_string, shown, state_from_params, update_state

CONTRACT_VERSION = 2
# Lab name -> module with SPEC and build_view. Imported on first use, so each
# page compiles only its own lab's code in the browser.
LABS = {
    "attention": "lab_core.attention_lab",
    "block": "lab_core.block_lab",
    "model": "lab_core.model_lab",
}


def get_lab(name):
    """The lab.Lab of that name."""
    if not isinstance(name, str) or name not in LABS:
        raise ValueError("el laboratorio «%s» no existe; hay: %s" % (shown(name), ", ".join(LABS)))
    return importlib.import_module(LABS[name]).LAB


def render(lab_name, state, held=None):
    """The view for a state already valid for that lab; `held`: an earlier
    view of it, whose parts are reused where their keys agree (Lab.build_view)."""
    lab = get_lab(lab_name)
    view = lab.build_view(state, held)
    view["contract"] = CONTRACT_VERSION
    view["query_string"] = query_string(lab.spec, state)
    return view


def to_json(data):
    """Serialise for the page; refuses NaN and ±∞, which JSON cannot carry."""
    return json.dumps(data, allow_nan=False, ensure_ascii=False)


def kept_sentence(key, value):
    """What stays after a refused value: «Se mantiene: 3», or for the edited
    vectors (a dict) a sentence of its own, since they are many."""
    if isinstance(value, dict):
        # The refused vector may or may not be one the reader changed before.
        return ("Se mantienen los vectores del artículo" if not value else
                "Cada vector se queda con el valor que tenía")
    return "Se mantiene: %s" % kept_text(key, value)


def kept_text(key, value):
    """A state value as the reader sees it: 3, 0,5, (1; 0), «El banco del parque»."""
    if isinstance(value, list):
        if value and all(isinstance(v, str) for v in value):
            return "«%s»" % " ".join(value)
        return "(" + "; ".join(kept_text(None, v) for v in value) + ")" if value else "la frase elegida"
    if key is not None and isinstance(value, str) and value in key.names:
        return "«%s»" % key.names[value]
    if isinstance(value, bool):  # a yes/no key, as its own message names them
        return "sí" if value else "no"
    if not isinstance(value, (int, float)):
        return str(value)
    return fmt_short(value, 4)


def answer(request_text, held=None):
    """Answer one page request (JSON text) with a reply envelope (a dict).

    request = {"lab": name, "from": "set" | "url", "state": {...}, "current": {...}}
      "set": strict; `state` is a partial applied on `current`, and a bad
             value gives {"ok": false, "error": message, "key": key}; the
             message ends by saying which value stays. With "partials"
             (a list) instead of "state", a batch: see the envelope above.
      "url": lenient; `state` holds URL strings, bad ones become notices.
    Nothing escapes: any request, however malformed, gets an envelope with a
    message in Spanish. `held`: the last view of this conversation (render).
    """
    try:
        request = json.loads(request_text)
        if not isinstance(request, dict):
            raise ValueError("la petición debe ser un objeto JSON")
        lab_name = request.get("lab", "attention")
        spec = get_lab(lab_name).spec
        if request.get("from") == "url":
            params = request.get("state") or {}
            if not isinstance(params, dict):
                raise ValueError("los parámetros de la dirección deben ser un objeto")
            state, notices = state_from_params(spec, params)
        elif "partials" in request:
            return _batch(lab_name, spec, request, held)
        elif request.get("from") == "export":
            state = update_state(spec, request.get("state"), {})
            link = request.get("link")
            if link is not None and not isinstance(link, str):
                raise ValueError("el enlace de una exportación debe ser un texto")
            return {"ok": True, "export": export_table(render(lab_name, state, held),
                                                       request.get("table"), link)}
        else:
            current = request.get("current")
            if current is not None and not isinstance(current, dict):
                raise ValueError("el estado actual debe ser un objeto")
            try:
                state = update_state(spec, current, request.get("state"))
            except StateError as error:
                return _rejected(spec, update_state(spec, current, {}), error)
            notices = []
        view = render(lab_name, state, held)
        view["notices"] = notices
        return {"ok": True, "view": view}
    except ValueError as error:
        return {"ok": False, "error": str(error), "key": getattr(error, "key", None)}
    except RecursionError:
        return {"ok": False, "error": "la petición anida demasiados niveles", "key": None}
    except Exception as error:  # noqa: BLE001 — the page must always get an answer
        return {"ok": False, "key": None,
                "error": "la petición no se pudo procesar (%s)" % type(error).__name__}


def _rejected(spec, state, error):
    """A rejected value's reply: the message, ending with the value that stays."""
    message = str(error)
    if error.key in state:
        key = spec.keys[error.key]
        message += ". " + ("Se mantiene: %s" % key.kept(state) if key.kept else
                           kept_sentence(key, state[error.key]))
    return {"ok": False, "error": message, "key": error.key}


def _batch(lab_name, spec, request, held=None):
    """Apply partial states in order; one view for the final state.

    The page sends what a reader (or a script) asked for within one frame;
    each partial succeeds or fails on its own, as if sent alone.
    """
    partials = request.get("partials")
    current = request.get("current")
    if not isinstance(partials, list) or (current is not None and not isinstance(current, dict)):
        raise ValueError("un lote necesita una lista de cambios y un estado actual")
    state = update_state(spec, current, {})
    results, changed = [], False
    for partial in partials:
        try:
            state = update_state(spec, state, partial)
            results.append({"ok": True})
            changed = True
        except StateError as error:
            results.append(_rejected(spec, state, error))
        except ValueError as error:
            results.append({"ok": False, "error": str(error), "key": None})
    return {"ok": True, "view": render(lab_name, state, held) if changed else None,
            "results": results}


def handle(request_text):
    """answer(), serialised: the JSON text the page parses."""
    return to_json(answer(request_text))


class Conversation:
    """The page's requests, answered with each view as a change of the last.

    A reader's change touches a few parts of a view (a new key redraws the
    cell's arithmetic, not the figures), and an unchanged part is the very
    object sent last time (render reuses the last view's parts whose keys
    did not change). Serialising, carrying and parsing the whole view on
    every change cost more than computing it (a view is 40-60 kB of JSON).
    So each view Python sends gets a number, "view_id"; a request may name
    the view the page holds, "base": n, and when n is the last view sent,
    the reply's view holds only the top-level keys whose value changed, and
    the envelope says "base": n. The page merges them into the view it
    holds. Any other request gets whole views.

    The page's first request, for its URL, may carry the prepared view it
    already shows ("prepared": view, built by this same lab_core at build
    time and checked there against render()). When that view is of the
    very state the URL gives, Python adopts it instead of building it
    again: the reply says "adopted": true, and its view holds only what
    differs (the URL's notices), for the page to merge into its own. The
    adopted view is then the one later changes reuse parts of.
    `reply()` also returns the whole envelope, for what the page publishes.
    """

    def __init__(self):
        self.last = None
        self.last_id = 0

    def reply(self, request_text):
        """-> (envelope sent, whole envelope), both dicts."""
        request = _parsed(request_text)
        adopted = self._adopt(request)
        if adopted is not None:
            return adopted
        whole = answer(request_text, held=self.last)
        view = whole.get("view") if whole.get("ok") else None
        if not view:
            return whole, whole
        base = request.get("base")
        base = base if isinstance(base, int) and not isinstance(base, bool) else None
        previous = self.last if base is not None and base == self.last_id else None
        self.last, self.last_id = view, self.last_id + 1
        sent = dict(whole, view_id=self.last_id)
        if previous is not None and previous["lab"] == view["lab"]:
            sent["base"] = base
            sent["view"] = {key: value for key, value in view.items()
                            if key not in previous or not _same(previous[key], value)}
        return sent, dict(whole, view_id=self.last_id)

    def _adopt(self, request):
        """A URL request's prepared view, adopted; None when it is not one
        (then the request is answered as any other)."""
        try:
            prepared = request.get("prepared")
            lab_name = request.get("lab", "attention")
            if request.get("from") != "url" or not isinstance(prepared, dict) or \
                    prepared.get("lab") != lab_name or not isinstance(request.get("state"), dict):
                return None
            lab = get_lab(lab_name)
            state, notices = state_from_params(lab.spec, request["state"])
        except Exception:  # noqa: BLE001 — answer() gives such a request its message
            return None
        whole_view = {key for key, _ in lab.parts} | {"lab", "state", "notices", "contract",
                                                      "query_string"}
        # The prepared view went through JSON; so does the state, to compare.
        if prepared.get("contract") != CONTRACT_VERSION or not whole_view <= set(prepared) or \
                json.loads(to_json(state)) != prepared["state"]:
            return None
        view = dict(prepared, state=state, notices=notices)
        self.last, self.last_id = view, self.last_id + 1
        changed = {"notices": notices} if notices != prepared.get("notices") else {}
        whole = {"ok": True, "view": view, "view_id": self.last_id}
        return dict(whole, view=changed, adopted=True), whole


def _same(a, b):
    # Cached parts come back as the same object; `==` catches the rest.
    return a is b or a == b


def _parsed(request_text):
    """The request as a dict, or {}: answer() gives a malformed one its message."""
    try:
        request = json.loads(request_text)
    except (ValueError, RecursionError):
        return {}
    return request if isinstance(request, dict) else {}
