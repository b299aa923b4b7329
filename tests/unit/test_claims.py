"""Every kind of claim on both pages, checked against a computation of this
file's own.

The other tests check a sentence against the helpers that build it; a check
that shares the writer's helpers shares its mistakes. This module imports
nothing from lab_core but its data (the articles' sentences, vectors, W_O,
W_U, the block lab's corpus) and the public `answer()`, recomputes each
quantity in float64 with plain loops (or torch, for gradients), rounds with
Decimal, and reads the view's words against those numbers, over states drawn
at random (a fixed seed, a bounded number): edited vectors, ties at the
tolerance, θ = 0, extreme rates, tiny and odd block sizes.
"""
import itertools
import json
import math
import re
from decimal import ROUND_HALF_UP, Decimal

import numpy as np
import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from lab_core.didactic import HEADS, SENTENCES, VOCABULARY, W_O, W_U
from lab_core.didactic_block import ORDER_SENTENCE
from lab_core.views import answer

from by_hand import attend, head_rows, heads_with, rotate  # tests/unit, on the path

SETTINGS = dict(deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


def view_of(lab, partial):
    reply = answer(json.dumps({"lab": lab, "from": "set", "current": None, "state": partial}))
    assert reply["ok"], reply
    return reply["view"]


# ------------------------------------------------------------ own reading

def rounded(x, digits):
    """x rounded half up at `digits`, as Spanish text, computed in Decimal
    from x's 12 significant digits (what a reader of the digits rounds)."""
    value = Decimal(repr(float("%.12g" % float(x))))
    r = value.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
    text = "{:,.{}f}".format(abs(r), digits).replace(",", " ").replace(".", ",").replace(" ", ".")
    return ("−" if r < 0 else "") + text


SUPER = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")


def read(text):
    """A number as the page writes it: '−1.234,5', '5,4·10⁻⁴', '33,3 %' -> Decimal."""
    text = text.replace("\u00a0", " ").replace("%", "").strip()
    if "·10" in text:
        mantissa, power = text.split("·10")
        return read(mantissa) * Decimal(10) ** int(power.translate(SUPER))
    return Decimal(text.replace(".", "").replace(",", ".").replace("−", "-"))


def prose(node, key=None):
    """Every string a reader may see in a view (not ids, values, state)."""
    if key in {"id", "value", "answers", "state", "query_string", "lab", "panel", "role",
               "name", "contract", "shown", "published"}:
        return
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for k, v in node.items():
            yield from prose(v, k)
    elif isinstance(node, list):
        for item in node:
            yield from prose(item, key)


def check_spanish(view, sentences=()):
    """No word said twice in a row («de de»: a word is quoted), no empty
    quotes, no number written out to 13 digits (a blown-up run reads in
    powers of ten). The reader's own sentences may repeat a word: they are
    left out of the check."""
    for text in prose(view):
        assert "«»" not in text and "()" not in text, text
        plain = re.sub(r"«[^»]*»", "«…»", text)
        for sentence in sorted(sentences, key=len, reverse=True):
            plain = plain.replace(sentence, "…")
        assert not re.search(r"(?<![\w,.])([^\W\d_]+) \1\b", plain), text
        assert not re.search(r"\d{1,3}(\.\d{3}){4,}", text), text


# --------------------------------------------------------- own attention

def next_word(tokens, heads, causal):
    """The toy model's logits and probabilities at every position."""
    concat = [[] for _ in tokens]
    for h in HEADS:
        _, _, outs = attend(tokens, head_rows(tokens, h, heads), causal)
        for i, o in enumerate(outs):
            concat[i] += o
    logits, probs = [], []
    for i, word in enumerate(tokens):
        residual = [(1.0 if VOCABULARY[c].lower() == word.lower() else 0.0)
                    + sum(concat[i][r] * W_O[r][c] for r in range(len(W_O)))
                    for c in range(len(VOCABULARY))]
        row = [sum(residual[c] * W_U[c][w] for c in range(len(VOCABULARY)))
               for w in range(len(VOCABULARY))]
        top = max(row)
        e = [math.exp(x - top) for x in row]
        logits.append(row)
        probs.append([x / sum(e) for x in e])
    return logits, probs


# ------------------------------------------------------ attention states

EDIT_VALUES = st.sampled_from([-2.0, -1.0, 0.0, 0.5, 1.0, 2.0, 3.25, 1e-8, -1e-8])
EDIT_NAMES = st.sampled_from(["%s.%s.%s" % (h, w, r) for h in HEADS if "vectors" in HEADS[h]
                              for w in VOCABULARY + ("río", "préstamo") for r in "qkv"])
# The article's words, words of the lab's groups (one neutral), a near miss
# and a word the lab does not know.
WORDS = VOCABULARY + ("el", "río", "préstamo", "al", "pedí", "Rio", "zorro")


@st.composite
def attention_states(draw):
    tokens = draw(st.one_of(st.just([]), st.lists(st.sampled_from(WORDS), min_size=1,
                                                   max_size=12)))
    sentence = draw(st.sampled_from(list(SENTENCES)))
    n = len(tokens) or len(SENTENCES[sentence]["tokens"])
    edits = draw(st.dictionaries(EDIT_NAMES, st.tuples(EDIT_VALUES, EDIT_VALUES), max_size=3))
    return {
        "sentence": sentence, "tokens": tokens,
        "vec": {k: list(v) for k, v in edits.items()},
        "query": draw(st.integers(0, n - 1)), "key": draw(st.integers(0, n - 1)),
        "mask": draw(st.sampled_from(["causal", "bidirectional"])),
        "head": draw(st.sampled_from(list(HEADS) + ["all"])),
        "step": draw(st.integers(1, n)),
        "theta": draw(st.sampled_from([0.0, 0.01, 0.5, 1.57, 3.14])),
        "rope_m": draw(st.integers(0, 12)), "rope_n": draw(st.integers(0, 12)),
        "rope_q": draw(st.sampled_from([[1, 0], [1, 1], [0, 0], [2, -1]])),
        "rope_k": draw(st.sampled_from([[2, 0], [1, 1], [0, 0], [-1, 3]])),
        "gen_words": draw(st.integers(0, 8)),
        "gen_mode": draw(st.sampled_from(["greedy", "sample"])),
        "gen_temp": draw(st.sampled_from([0.1, 1.0, 5.0])),
        "gen_seed": draw(st.integers(0, 3)),
    }


def check_tables_and_arithmetic(state, view):
    tokens = view["sentence"]["tokens"]
    heads = heads_with(state["vec"])
    causal = state["mask"] == "causal"
    shown = list(HEADS) if state["head"] == "all" else [state["head"]]
    for h, pair in zip(shown, view["tables"]):
        scores, weights, _ = attend(tokens, head_rows(tokens, h, heads), causal)
        off = []
        for i, (srow, wrow) in enumerate(zip(pair["scores"]["rows"], pair["weights"]["rows"])):
            for j in range(len(tokens)):
                if weights[i][j] is None:
                    assert srow["cells"][j]["text"] == "−∞" and wrow["cells"][j]["text"] == "0"
                else:
                    assert srow["cells"][j]["text"] == rounded(scores[i][j], 2)
                    assert wrow["cells"][j]["text"] == rounded(weights[i][j], 2)
            as_read = sum(read(c["text"]) for c in wrow["cells"])
            if as_read != 1:
                # A word the sentence has twice is named with its position.
                named = "«%s»" % tokens[i] + (" (posición %d)" % i if tokens.count(tokens[i]) > 1
                                              else "")
                off.append((named, as_read))
        note = pair["weights"]["note"]
        assert (note is None) == (not off), (state, note)
        for named, total in off:
            assert "la fila de %s suman %s, no 1,00" % (named, rounded(total, 2)) in note
    # The worked-out cell, for the first shown head.
    i, j = state["query"], state["key"]
    scores, weights, _ = attend(tokens, head_rows(tokens, shown[0], heads), causal)
    why = view["arithmetic"]["blocks"][0]["why"]
    if weights[i][j] is not None:
        seen = [c for c in range(len(tokens)) if weights[i][c] is not None]
        top = max(scores[i][c] for c in seen)
        e = {c: math.exp(scores[i][c] - top) for c in seen}
        n_text, d_text = rounded(e[j], 3), rounded(sum(e.values()), 3)
        w_text = rounded(weights[i][j], 2)
        found = re.search(r"fila: (\S+) / (\S+) ([=≈]) (\S+?)(\.| \(dividiendo)", why)
        assert found and found.group(1, 2, 4) == (n_text, d_text, w_text), (state, why)
        q = read(n_text) / read(d_text)
        if q == read(w_text):
            assert found.group(3) == "=" and "sin redondear" not in why
        elif rounded(q, 2) == w_text:
            assert found.group(3) == "≈" and "sin redondear" not in why
        else:
            assert "(dividiendo los valores sin redondear)" in why, (state, why)
    # The prediction: the chosen key's weight, in three bands, from the
    # independent weights (exactly one half is «la mitad o más»; a weight
    # that only reads as 0,50 is right both ways).
    j = state["key"]
    predict = view["arithmetic"]["predict"]
    exact_half = weights[i][j] is not None and abs(weights[i][j] - 0.5) < 1e-12
    if weights[i][j] is None:
        want = ["cero"]
    elif exact_half:
        want = ["mitad"]
    elif rounded(weights[i][j], 2) == "0,50":
        want = ["menos", "mitad"]
    else:
        want = ["mitad"] if weights[i][j] > 0.5 else ["menos"]
    assert sorted(predict["answers"]) == want, (state, predict["answers"])
    # A word the sentence says twice is named with its position.
    named = lambda k: "«%s»" % tokens[k] + (" (posición %d)" % k if tokens.count(tokens[k]) > 1
                                            else "")
    # A weight that reads 0,00 is given unrounded too, from this test's own softmax.
    shown = rounded(weights[i][j], 2) if want != ["cero"] else None
    unrounded = " (sin redondear, %s)" % sci(weights[i][j]) if shown == "0,00" else ""
    assert predict["explanation"].startswith(
        "%s recibe 0: " % named(j) if want == ["cero"]
        else "%s recibe %s%s de la fila de %s: %s." % (
            named(j), shown, unrounded, named(i),
            "exactamente la mitad" if exact_half else
            "más de la mitad" if want == ["mitad"] else "más de 0 y menos de la mitad"
            if want == ["menos"] else "la mitad, leída con dos decimales")), predict["explanation"]
    # Then the row's winners: every word whose weight, as read, is the largest.
    row = [(tokens[c], read(rounded(weights[i][c], 2)) if weights[i][c] is not None else Decimal(0))
           for c in range(len(tokens))]
    top = max(v for _, v in row)
    winners = {w for w, v in row if v == top}
    assert ("Más peso en la fila: empate entre" if len(winners) > 1
            else "Más peso en la fila: ") in predict["explanation"]


def check_vocabulary_and_copies(state, view):
    tokens = view["sentence"]["tokens"]
    causal = state["mask"] == "causal"
    heads = heads_with(state["vec"])
    _, probs = next_word(tokens, heads, causal)
    i = state["query"]
    texts = {VOCABULARY[w]: rounded(p, 2) for w, p in enumerate(probs[i])}
    rows = view["mixture"]["vocab"]["table"]["rows"][:-1]
    assert {r["label"]: r["cells"][1]["text"] for r in rows} == texts
    top = max(read(t) for t in texts.values())
    tied = [w for w, t in texts.items() if read(t) == top]
    best = view["mixture"]["vocab"]["best"]
    assert best.startswith("empate entre") == (len(tied) > 1), (state, best)
    assert ("suman" in (view["mixture"]["vocab"]["table"]["note"] or "")) == (
        sum(read(t) for t in texts.values()) != 1)
    shown = list(HEADS) if state["head"] == "all" else [state["head"]]
    where = [p for p, w in enumerate(tokens) if w == tokens[i]]
    for h, block in zip(shown, view["mixture"]["blocks"]):
        if len(where) < 2:
            assert block["copies"] == ""
            continue
        _, _, outs = attend(tokens, head_rows(tokens, h, heads), causal)
        equal = all(max(abs(a - b) for a, b in zip(outs[where[0]], outs[p])) <= 1e-9 for p in where)
        assert ("es la misma en" in block["copies"]) == equal, (state, block["copies"])
        assert ("difieren" in block["copies"]) == (not equal)


CLUE_KINDS = ("la única palabra de la frase", "reparte su peso por igual",
              "más que ella misma", "da más peso")


def check_clues(state, view):
    """«Qué encuentra»: a word head names the words the query reads most (as
    read at two decimals, with access open) only when they get more than
    the query itself."""
    tokens = view["sentence"]["tokens"]
    heads = heads_with(state["vec"])
    i = state["query"]
    for h, said in zip(("lugar", "finanzas"), view["clues"]["heads"]):
        _, weights, _ = attend(tokens, head_rows(tokens, h, heads), False)
        shown = [read(rounded(w, 2)) for w in weights[i]]
        top = [j for j, w in enumerate(shown) if w == max(shown)]
        kind = (CLUE_KINDS[0] if len(tokens) == 1 else CLUE_KINDS[1] if len(top) == len(tokens)
                else CLUE_KINDS[2] if i in top else CLUE_KINDS[3])
        assert [k for k in CLUE_KINDS if k in said] == [kind], (state, h, said, shown)


def check_training(view):
    tokens = view["sentence"]["tokens"]
    training = view["training"]
    if len(tokens) < 2:
        assert training["table"] is None
        return
    heads = heads_with(view["state"]["vec"])
    article = [w.lower() for w in VOCABULARY]
    scored = [i for i in range(len(tokens) - 1) if tokens[i + 1].lower() in article]
    if not scored:  # no next word the toy model can predict
        assert training["table"] is None and "no hay pérdida" in training["pairs"]
        return
    losses = {}
    for kind, causal in (("causal", True), ("abierta", False)):
        _, probs = next_word(tokens, heads, causal)
        losses[kind] = {i: -math.log(probs[i][article.index(tokens[i + 1].lower())])
                        for i in scored}
    summary, detail = training["summary"], training["detail"]
    better = {(tokens[i], tokens[i + 1]) for i in scored
              if read(rounded(losses["abierta"][i], 3)) < read(rounded(losses["causal"][i], 3))}
    worse = {(tokens[i], tokens[i + 1]) for i in scored
             if read(rounded(losses["abierta"][i], 3)) > read(rounded(losses["causal"][i], 3))}
    said_better = re.search(r"Con la bidireccional mejoran? (.*?)\.(?: Empeora| Que)", detail)
    said_worse = re.search(r"Empeoran? (.*?)\. Que", detail)
    pair = re.compile(r"«([^»]+)» → «([^»]+)»")
    assert (set(pair.findall(said_better.group(1))) if said_better else set()) == better, detail
    assert (set(pair.findall(said_worse.group(1))) if said_worse else set()) == worse, detail
    causal_mean = sum(losses["causal"].values()) / len(scored)
    open_mean = sum(losses["abierta"].values()) / len(scored)
    causal_text, open_text = rounded(causal_mean, 3), rounded(open_mean, 3)
    assert summary.startswith("Pérdida media: causal %s; bidireccional %s (" % (causal_text, open_text))
    # The positions that go against the mean, counted from this test's own losses.
    lower, higher = read(open_text) < read(causal_text), read(open_text) > read(causal_text)
    against = worse if lower else better if higher else set()
    if against:
        verb = "empeora" if lower else "mejora"
        count = ("las %d posiciones %sn" % (len(scored), verb) if len(against) == len(scored)
                 else "%d de %d posiciones %s%s" % (len(against), len(scored), verb,
                                                    "" if len(against) == 1 else "n"))
        assert ", aunque %s)." % count in summary, summary
    else:
        assert "aunque" not in summary, summary


def check_cache_and_generation(state, view):
    cache = view["cache"]
    step = state["step"]
    n_head = 3 if state["head"] == "all" else 1
    tradeoff = cache["tradeoff"]
    if step == 1:  # nothing cached yet: nothing saved
        assert "todavía no hay nada guardado" in tradeoff and "en vez de" not in tradeoff
        assert "(%d proyecciones)" % (3 * n_head) in tradeoff
    else:
        assert "%d proyecciones en vez de %d, y %d productos q·k en vez de %d." % (
            3 * n_head, 3 * step * n_head, step * n_head, step * (step + 1) // 2 * n_head) in tradeoff
        assert "cada una de las %d claves guardadas" % step in tradeoff
    assert "tras este paso, %d." % (4 * step * n_head) in tradeoff
    prefix = cache["prefix"]
    assert "«»" not in prefix["text"]
    # Generation: this file's own model, greedy, continues the same way.
    if state["gen_mode"] == "greedy":
        heads = heads_with(state["vec"])
        tokens = list(view["sentence"]["tokens"])
        for _ in range(state["gen_words"]):
            _, probs = next_word(tokens, heads, True)
            last = probs[-1]
            top = max(last)
            tokens.append(VOCABULARY[min(w for w, p in enumerate(last) if p >= top - 1e-9)])
        assert view["generation"]["sentence"] == " ".join(tokens)


def check_rope(state, view):
    rope = view["rope"]
    q, k, theta, m, n = state["rope_q"], state["rope_k"], state["theta"], state["rope_m"], state["rope_n"]
    qm, kn = rotate(q, m * theta), rotate(k, n * theta)
    score = qm[0] * kn[0] + qm[1] * kn[1]
    assert rope["score"] == rounded(score, 2)
    sign = rope["sign"]
    if theta == 0:
        assert "nada gira" in sign and "tiene signo" not in sign
        return
    if n == m:
        assert sign.startswith("Con n − m = 0")
        return
    q0, k0 = rotate(q, 0), rotate(k, -(n - m) * theta)
    mirrored = q0[0] * k0[0] + q0[1] * k0[1]
    assert ("tiene signo" in sign) == (abs(score - mirrored) > 1e-9), (state, sign)
    said = re.search(r"qₘ · kₙ ([=≈]) (\S+);", sign)
    assert said.group(2) == rounded(score, 2)
    assert (said.group(1) == "=") == (abs(float(read(said.group(2))) - score) < 1e-9)


@settings(max_examples=160, **SETTINGS)
@given(attention_states())
def test_attention_claims_against_an_own_computation(state):
    view = view_of("attention", state)
    state = view["state"]  # positions clamped to the sentence, as the page shows
    check_spanish(view, [view["sentence"]["label"], view["sentence"]["other"],
                         view["generation"]["sentence"], view["generation"]["new"]])
    check_tables_and_arithmetic(state, view)
    check_vocabulary_and_copies(state, view)
    check_clues(state, view)
    check_training(view)
    check_cache_and_generation(state, view)
    check_rope(state, view)


def test_the_reviews_attention_states():
    # A tie decided on the numbers as read: parque's key nudged by 10⁻⁸.
    view = view_of("attention", {"vec": {"lugar.parque.k": [1e-8, 0]}, "query": 3, "key": 0})
    assert "Más peso en la fila: empate entre El, banco, del y parque" in (
        view["arithmetic"]["predict"]["explanation"])
    assert view["arithmetic"]["predict"]["answers"] == ["menos"]  # El gets 0,25 of parque's row
    # A division a reader can redo: 0,001 / 1,345 is 0,0007, which reads 0,00.
    why = view_of("attention", {"query": 3, "head": "anterior", "key": 0})["arithmetic"]["blocks"][0]["why"]
    assert "0,001 / 1,345 ≈ 0,00." in why
    # θ = 0: nothing turns, so neither the offset nor its sign counts.
    rope = view_of("attention", {"theta": 0, "rope_k": [0, 2]})["rope"]
    assert "nada gira" in rope["sign"] and "con su signo" not in rope["predict"]["explanation"]
    # No empty quotes when the other sentence is shorter.
    prefix = view_of("attention", {"tokens": ["El", "banco", "del", "parque", "de", "crédito"],
                                   "query": 4, "step": 5})["cache"]["prefix"]
    assert "«»" not in prefix["text"] and prefix["text"].endswith("no llega a la posición 4")
    # A repeated word is quoted, never «de de».
    said = view_of("attention", {"sentence": "credito", "query": 2, "key": 0})["announce"]["query"]
    assert said.startswith("Peso de «de» → «El»:")


def test_panel_six_says_what_each_position_does_with_the_mask_open():
    training = view_of("attention", {})["training"]
    # (0,222; 0,888; 0,279) → (0,336; 0,334; 0,336): only banco → del improves.
    assert "Con la bidireccional mejora «banco» → «del» (0,888 → 0,334)." in training["detail"]
    assert "Empeoran «El» → «banco» (0,222 → 0,336) y «del» → «parque» (0,279 → 0,336)." in training["detail"]
    assert "ya está viendo la palabra que debía adivinar" not in training["summary"]


# ----------------------------------------------------------- panel 8

def accuracies(lr, seed, step):
    table = view_of("attention", {"train_lr": lr, "train_seed": seed, "train_steps": step})["learning"]["table"]
    return [read(row["cells"][2]["text"]) for row in table["rows"]]


@pytest.mark.parametrize("lr, seed, step", [(0.05, 0, 100), (0.5, 0, 20), (0.01, 3, 400)])
def test_todavia_only_when_a_later_step_gets_there(lr, seed, step):
    verdict = view_of("attention", {"train_lr": lr, "train_seed": seed,
                                    "train_steps": step})["learning"]["verdict"]
    if "Ninguna llega" not in verdict:
        return
    later = [s for s in range(step + 1, 501) if max(accuracies(lr, seed, s)) >= 90]
    assert ("todavía" in verdict) == bool(later), verdict
    if later:
        assert "lo alcanza en el paso %d" % later[0] in verdict


def test_the_loss_chart_says_which_curve_is_which():
    alt = view_of("attention", {"train_lr": 10, "train_steps": 300})["learning"]["chart"]["alt"]
    assert "la bidireccional vale" in alt and "y la causal" in alt
    assert "Las curvas bidireccional y causal se salen" in alt


# ------------------------------------------------------------ block lab

def toy_gradients(depth, residual):
    """The residual panel's toy stack (x ↦ tanh(xW) (+ x), d = 8, gain 0,5,
    weights from RandomState(1)), its gradient by finite products of own
    Jacobians, one loop per layer."""
    rng = np.random.RandomState(1)
    weights = rng.normal(0.0, 0.5 / math.sqrt(8), size=(depth, 8, 8))
    x = np.random.RandomState(1).normal(size=8)
    jac, norms = np.eye(8), []
    for w in weights:
        pre = x @ w
        local = w * (1 - np.tanh(pre) ** 2)[None, :]
        if residual:
            local = local + np.eye(8)
            x = x + np.tanh(pre)
        else:
            x = np.tanh(pre)
        jac = jac @ local
        norms.append(float(np.linalg.norm(jac @ (np.ones(8) / math.sqrt(8)))))
    return norms


def sci(x):
    mantissa, exponent = "{:.1e}".format(x).split("e")
    return rounded(float(mantissa), 1) + "·10" + str(int(exponent)).translate(
        str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))


def counts(d_model, d_ff):
    attention, ffn, ln = 4 * d_model ** 2, 2 * d_model * d_ff + d_ff + d_model, 4 * d_model
    return attention, ffn, ln


@st.composite
def block_states(draw):
    d_model = draw(st.sampled_from([1, 2, 3, 8, 12, 64, 512, 768, 8192]))
    heads = draw(st.sampled_from([h for h in (1, 2, 3, 4, 8, 12) if d_model % h == 0]))
    return {
        "d_model": d_model, "heads": heads,
        "d_ff": draw(st.sampled_from([1, 2, 7, 12, 64, 512, 2048, 3000, 3072, 8192])),
        "depth": draw(st.integers(1, 64)),
        "pe_positions": draw(st.sampled_from([1, 2, 3, 5, 17, 50, 128])),
        "pe_d": draw(st.sampled_from([2, 4, 16, 64])),
        "shift_k": draw(st.integers(0, 5)),
        "ln_x": draw(st.sampled_from([[2, 4, 6, 8], [1, 1, 1, 1], [-3, 0.5, 7, 100]])),
        "gamma": draw(st.sampled_from([1.0, -2.5, 0.0, 100.0])),
        "beta": draw(st.sampled_from([0.0, 5.0, -100.0])),
    }


def check_residual(state, view):
    depth = state["depth"]
    plain, res = toy_gradients(depth, False), toy_gradients(depth, True)
    residual = view["residual"]
    assert residual["plain"] == (rounded(plain[-1], 4) if 1e-3 <= plain[-1] < 1e6 else sci(plain[-1]))
    assert residual["residual"] == rounded(res[-1], 3)
    assert "es %s sin residual y %s con residual" % (residual["plain"], residual["residual"]) in residual["chart"]["alt"]
    if depth > 1:
        lowest = int(np.argmin(plain))
        said = residual["summary"]
        if lowest == depth - 1:
            assert "la menor de la tabla" in said
        else:
            assert "(con %d capa%s)" % (lowest + 1, "" if lowest == 0 else "s") in said


def check_parameters(state, view):
    d_model, d_ff = state["d_model"], state["d_ff"]
    a, f, ln = counts(d_model, d_ff)
    total = a + f + ln
    rows = view["block"]["params"]["rows"]
    texts = []
    for row, part in zip(rows, (a, f, ln)):
        honest = rounded(100 * part / total, 1)
        texts.append(row[2])
        assert row[2] == ("< 0,1 %" if part and read(honest) == 0 else honest + " %")
    readable = [read(t) for t in texts if not t.startswith("<")]
    adds = len(readable) == 3 and sum(readable) == 100
    assert (view["block"]["params"]["note"] is None) == adds
    # The limit f/(2d + f), in integers.
    sentence = view["block"]["share_sentence"]
    if d_ff / d_model >= 0.001:
        if f * (2 * d_model + d_ff) == d_ff * total:
            assert "y aquí ya lo tiene" in sentence
        else:
            below = f * (2 * d_model + d_ff) < d_ff * total
            said_below = re.search("Aquí queda (justo )?por debajo", sentence) is not None
            said_above = re.search("Aquí queda (justo )?por encima", sentence) is not None
            assert (said_below, said_above) == (below, not below), sentence
        ratio = d_ff / d_model
        text = rounded(ratio, 3).rstrip("0").rstrip(",")
        if d_ff != d_model:
            assert ("d_ff = %s·d_model" % text in sentence) == (float(read(text)) == ratio)
            assert ("d_ff ≈ %s·d_model" % text in sentence) == (float(read(text)) != ratio)
    published = view["block"]["published"]
    assert published["rows"][3] == ["Total", "{:,}".format(total), "100.0%"]


def check_position(state, view):
    n, width, k = state["pe_positions"], state["pe_d"], state["shift_k"]
    shift = view["position"]["shift"]
    if k == 0:
        assert shift["verdict"].startswith("Con k = 0")
        return
    freq = [1.0 / 10000 ** (i / width) for i in range(width)]
    enc = np.array([[math.sin(p * w) for w in freq] for p in range(n + k)])
    src, dst = enc[1:n], enc[1 + k:n + k]
    if n > 1:
        m = np.linalg.lstsq(src, dst, rcond=None)[0]
        error = float(np.max(np.abs(src @ m - dst)))
        assert ("incluso los senos solos bastan" in shift["verdict"]) == (error < 1e-9), (state, error)
    zero = max(abs(math.sin(k * w)) for w in freq)
    assert "allí falla en %s" % shift["zero"] in shift["verdict"]
    assert abs(float(read(shift["zero"])) - zero) <= 0.5e-4 * max(1, zero)


def check_layernorm(state, view):
    x = np.array(state["ln_x"], dtype=float)
    mean, var = x.mean(), x.var()
    out = (x - mean) / math.sqrt(var + 1e-5) * state["gamma"] + state["beta"]
    sentence = view["layernorm"]["undo"]["sentence"]
    back = bool(np.all(np.abs(out - x) <= 1e-9))
    if np.all(x == x[0]):
        assert sentence.startswith("Aquí x es constante") and sentence.endswith(
            ", y así está." if back else "para recuperarlo.")
    else:
        assert sentence.startswith("Con γ") == back, (state, sentence)
    growth = view["layernorm"]["growth_summary"]
    x0 = np.random.RandomState(3).normal(size=16)
    assert growth.startswith("La entrada tiene norma %s." % rounded(np.linalg.norm(x0), 2))


@settings(max_examples=120, **SETTINGS)
@given(block_states())
def test_block_claims_against_an_own_computation(state):
    view = view_of("block", state)
    check_spanish(view)
    check_residual(state, view)
    check_parameters(state, view)
    check_position(state, view)
    check_layernorm(state, view)


def test_the_reviews_block_states():
    residual = view_of("block", {"depth": 9})["residual"]
    assert "es 0,0022 sin residual" in residual["chart"]["alt"]
    assert "llega a bajar a 5,4·10⁻⁴ (con 8 capas)" in residual["summary"]
    equal = view_of("block", {"d_model": 2, "heads": 2, "d_ff": 2})["block"]["share_sentence"]
    assert "por encima" not in equal and "exactamente un tercio" in equal
    sine = view_of("block", {"pe_positions": 3, "pe_d": 2, "shift_k": 1})["position"]["shift"]
    assert "incluso los senos solos bastan" in sine["verdict"]
    assert "allí falla en 0,8415" in sine["verdict"]
    ratio = view_of("block", {"d_model": 768, "heads": 12, "d_ff": 3000})["block"]["share_sentence"]
    assert ratio.startswith("Con d_ff ≈ 3,906·d_model,")
    thirds = view_of("block", {"d_model": 1, "heads": 1, "d_ff": 1})["block"]["params"]
    assert thirds["note"] == "Cada proporción está redondeada por separado: suman 99,9 %, no 100,0 %."
    layernorm = view_of("block", {"gamma": 2.23607021356649, "beta": 5})["layernorm"]
    assert layernorm["undo"]["sentence"].startswith("Con γ = √(σ² + ε) ≈ 2,2361 y β = μ = 5,000 la salida vuelve a ser x")
    # γ typed as the page shows it: the output reads as x (computed here),
    # so the panel does not ask for the values already there.
    x = np.array([2.0, 4.0, 6.0, 8.0])
    typed = (x - x.mean()) / np.sqrt(x.var() + 1e-5) * 2.2361 + 5
    assert [rounded(v, 3) for v in typed] == ["2,000", "4,000", "6,000", "8,000"]
    assert not np.allclose(typed, x, rtol=0, atol=1e-9)
    typed_view = view_of("block", {"ln_x": list(x), "gamma": 2.2361, "beta": 5})["layernorm"]
    assert typed_view["undo"]["sentence"].startswith("Con estos γ y β la salida se lee igual que x")
    assert "harían falta" not in typed_view["undo"]["sentence"]
    # d_ff = d_model: a third of the weights and a third of the linear terms
    # (counted here), not biases that weigh as much as LayerNorm.
    d = 512
    attention, ffn, ln = counts(d, d)
    assert 3 * ffn == attention + ffn + ln and 3 * 2 * d == 2 * d + ln
    third = view_of("block", {"d_model": d, "heads": 8, "d_ff": d})["block"]["share_sentence"]
    assert "pesan lo mismo" not in third
    assert ("sus pesos (2·d_model²) son un tercio de los términos en d_model² (6·d_model²), y sus "
            "sesgos (2·d_model), un tercio de los lineales (6·d_model, con los 4·d_model de "
            "LayerNorm)") in third


def test_pre_norm_gradients_against_torch_autograd():
    """The LayerNorm panel's gradient table, against torch on the same stack:
    the last layer's ‖∂L/∂W‖ for post-norm and pre-norm, depths 1 to 12."""
    torch = pytest.importorskip("torch")
    table = view_of("block", {"depth": 12})["layernorm"]["stability"]
    for depth, row in zip(range(1, 13), table["rows"]):
        rng = np.random.RandomState(3)
        x0 = torch.tensor(rng.normal(size=(8, 16)))
        upstream = torch.tensor(rng.normal(size=(8, 16)) / 4)
        weights = [torch.tensor(w, requires_grad=True)
                   for w in rng.normal(0.0, 0.25, size=(depth, 16, 16))]
        ln = lambda t: torch.nn.functional.layer_norm(t, (16,), eps=1e-5)  # noqa: E731
        grads = []
        for kind in ("post", "pre"):
            h = x0
            for w in weights:
                h = ln(h + h @ w) if kind == "post" else h + ln(h) @ w
            if kind == "pre":
                h = ln(h)
            (g,) = torch.autograd.grad((h * upstream).sum(), weights[-1])
            grads.append(float(g.norm()))
        assert [c["text"] for c in row["cells"]] == [rounded(v, 2) for v in grads], depth


def test_the_order_panel_keeps_each_pairs_weight():
    # Any order: the weight perro → hombre is the same number, said the same.
    for order in itertools.islice(itertools.permutations(range(5)), 0, 120, 7):
        view = view_of("block", {"order": list(order)})["order"]
        assert view["pair"]["a"] == view["pair"]["b"]
        assert view["permuted"] == " ".join(ORDER_SENTENCE[i] for i in order)


def test_sampled_generation_names_the_temperature_of_its_probabilities():
    """At temperature 5 the listed odds are the draw's own, softmax(logits / 5)
    (recomputed here from the first step's logits), and the column says so;
    greedy lists the plain softmax under the plain name."""
    state = {"gen_mode": "sample", "gen_temp": 5, "gen_words": 1}
    generation = view_of("attention", state)["generation"]
    table = generation["table"]
    assert table["columns"][1] == "más probables a temperatura 5"
    from lab_core.language import next_word_probs
    tokens = generation["sentence"].split()[:-1]  # the default sentence, before the word drawn
    _, logits, _ = next_word_probs(tokens, HEADS, "causal")
    scaled = np.exp((logits[-1] - logits[-1].max()) / 5)
    odds = scaled / scaled.sum()
    listed = table["rows"][0]["cells"][1]["text"].split("; ")
    word, shown = listed[0].rsplit(" ", 1)
    assert shown == format(round(float(odds[VOCABULARY.index(word)]), 2), ".2f").replace(".", ",")
    assert float(odds[VOCABULARY.index(word)]) == pytest.approx(odds.max())
    assert view_of("attention", {"gen_words": 1})["generation"]["table"]["columns"][1] == \
        "más probables"


def test_the_weight_question_names_a_repeated_word_by_its_position():
    """«El banco del banco»: asked for the second «banco» in the first one's
    row, the question says which is which, as the other panels do."""
    state = {"tokens": "El;banco;del;banco", "query": 1, "key": 3, "mask": "bidirectional"}
    question = view_of("attention", state)["arithmetic"]["predict"]
    assert "¿qué peso recibirá «banco» (posición 3) en la fila de «banco» (posición 1)?" in \
        question["question"]
    assert question["explanation"].startswith("«banco» (posición 3) recibe ")
