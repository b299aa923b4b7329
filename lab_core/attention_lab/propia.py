"""Panel «Tu propia frase»: a sentence the reader types or builds, the
second sentence for the comparisons of panels 4 and 7, the lab's vocabulary,
and what the word heads find for the query under each mask.

The numbers still belong to the words: with `tokens` = El banco de parque,
the place head scores banco → parque 2/√2 ≈ 1,41, as in the preset; «río»
scores as parque does, since it takes parque's vectors (vocabulary.py).
"""
from __future__ import annotations

from ..didactic import HEADS
from ..heads import is_position_head
from ..memo import reads
from ..vocabulary import GROUP_OF, GROUPS, LEXICON, lemma, suggestions
from ..words import best_as_read, join_words, plural, quoted
from .context import MAX_TOKENS, other_tokens, run, tokens_of, weight_texts, word_at

WORD_HEADS = tuple(h for h, head in HEADS.items() if not is_position_head(head))
# The word heads by name: with «todas» three heads are on screen, and
# «token anterior» looks at a position, never for a clue.
_NEITHER = "Ni la %s ni la %s" % tuple("«%s»" % HEADS[h]["label"] for h in WORD_HEADS)


def _words(tokens):
    words = []
    for i, word in enumerate(tokens):
        found = lemma(word)
        group = GROUPS[GROUP_OF[found]][0].lower() if found else "desconocida"
        words.append({"index": i, "word": word, "known": found is not None, "group": group,
                      "label": "%d · %s (%s)" % (i, word, group)})
    return words


def unknown_notice(tokens):
    """(notice, corrected tokens or None) for the words the lab does not know."""
    unknown = list(dict.fromkeys(w for w in tokens if lemma(w) is None))
    if not unknown:
        return "", None
    one = len(unknown) == 1
    notice = ("No conozco %s: %s como %s (q, k y v a cero en la %s y en la %s; "
              "el «token anterior» solo mira la posición)."
              % (quoted(unknown), "la trato" if one else "las trato",
                 "palabra neutra" if one else "palabras neutras",
                 HEADS["lugar"]["label"], HEADS["finanzas"]["label"]))
    fixes = {w: suggestions(w) for w in unknown}
    offered = [w for w in unknown if fixes[w]]
    if not offered:
        return notice + " Mira el vocabulario para ver las palabras que conozco.", None
    if len(offered) == 1:
        notice += " ¿Querías decir %s?" % join_words(["«%s»" % s for s in fixes[offered[0]]], "o")
    else:
        notice += " Quizá querías decir %s." % join_words(
            ["%s (por «%s»)" % (join_words(["«%s»" % s for s in fixes[w]], "o"), w)
             for w in offered])
    corrected = [fixes[w][0] if lemma(w) is None and fixes.get(w) else w for w in tokens]
    if corrected and corrected[0][0].islower() and tokens[0][:1].isupper():
        corrected[0] = corrected[0][0].upper() + corrected[0][1:]
    return notice, corrected


def clue(state, head_id):
    """What one word head finds for the query, from its weights under both
    masks: {"said": its sentence, "before": [(word, causal weight as read,
    head)], "after": [words]}: the other words that get the most weight as
    read, on each side. A word that gets only as much as the query itself
    is no clue: the head has not singled it out."""
    tokens, i = tokens_of(state), state["query"]
    word, label = word_at(tokens, i), HEADS[head_id]["label"]
    open_run = run(state, head_id, mask_kind="bidirectional")
    causal_run = run(state, head_id, mask_kind="causal")
    texts = weight_texts(open_run["weights"][i], open_run["mask"][i])
    causal_texts = weight_texts(causal_run["weights"][i], causal_run["mask"][i])
    top = best_as_read(list(range(len(tokens))), texts)
    name = label[0].upper() + label[1:]
    found = {"before": [], "after": []}
    if len(tokens) == 1:
        return dict(found, said="%s: %s es la única palabra de la frase y se lleva todo su "
                    "peso (%s): no hay otra que pueda darle una pista." % (name, word, texts[i]))
    if len(top) == len(tokens):
        return dict(found, said="%s: con acceso bidireccional, %s reparte su peso por igual "
                    "(%s cada palabra): esta cabeza no encuentra pista." % (name, word, texts[i]))
    others = [j for j in top if j != i]
    if not others or i in top:
        tied = ("; %s recibe%s lo mismo" % (join_words([word_at(tokens, j) for j in others]),
                                             "n" if len(others) > 1 else "") if others else "")
        return dict(found, said="%s: con acceso bidireccional, ninguna palabra recibe de %s "
                    "más que ella misma (%s%s): esta cabeza no encuentra pista."
                    % (name, word, texts[i], tied))
    before = [j for j in others if j < i]
    after = [j for j in others if j > i]
    found = {"before": [(word_at(tokens, j), causal_texts[j], label) for j in before],
             "after": [word_at(tokens, j) for j in after]}
    if len(others) == 1:
        said = "%s: con acceso bidireccional, la palabra a la que %s da más peso es %s (%s)" % (
            name, word, word_at(tokens, others[0]), texts[others[0]])
    else:
        said = ("%s: con acceso bidireccional, las palabras a las que %s da más peso son %s "
                "(%s cada una)" % (name, word, join_words([word_at(tokens, j) for j in others]),
                                   texts[others[0]]))
    many_before, many_after = len(before) > 1, len(after) > 1
    if before:
        # With words on both sides, each clause names its own words.
        said += ("; %sva%s antes, así que la máscara causal no %s oculta: con ella recibe%s %s"
                 % ("%s " % join_words([word_at(tokens, j) for j in before]) if after else "",
                    "n" if many_before else "", "las" if many_before else "la",
                    "n" if many_before else "", join_words([causal_texts[j] for j in before])))
    if after:
        said += ("; %sva%s después, así que la máscara causal %s oculta: peso 0"
                 % ("%s " % join_words([word_at(tokens, j) for j in after]) if before else "",
                    "n" if many_after else "", "las" if many_after else "la"))
    return dict(found, said=said + ".")


@reads("sentence", "tokens", "other", "vec", "query")
def clues_view(state):
    """Each word head's strongest keys for the query, and the lesson of the
    two masks drawn from where those keys are."""
    found = [clue(state, h) for h in WORD_HEADS]
    tokens, i = tokens_of(state), state["query"]
    word = word_at(tokens, i)
    before = list(dict.fromkeys(b for f in found for b in f["before"]))
    after = list(dict.fromkeys(a for f in found for a in f["after"]))
    many_before, many_after = len(before) > 1, len(after) > 1
    # A word quoted as a word («parque», «la») is taken as masculine, as
    # every panel says it: «lo ve», «los oculta».
    if before and not after:
        lesson = ("%s va%s antes de %s, y la máscara causal solo oculta lo que viene después: "
                  "con ella, %s."
                  % (join_words(dict.fromkeys(w for w, _, _ in before)),
                     "n" if many_before else "", word,
                     join_words(["%s sigue recibiendo %s en la %s" % (w, t, h)
                                 for w, t, h in before])))
    elif after and not before:
        lesson = ("%s va%s después de %s: con la máscara causal, al leer %s todavía no ha%s "
                  "llegado (peso 0), y solo el acceso bidireccional %s ve."
                  % (join_words(after), "n" if many_after else "", word, word,
                     "n" if many_after else "", "los" if many_after else "lo"))
    elif before:
        lesson = ("%s va%s antes de %s y la máscara causal %s deja ver; %s va%s después y la "
                  "máscara %s oculta. La máscara causal solo oculta lo que viene después."
                  % (join_words(dict.fromkeys(w for w, _, _ in before)),
                     "n" if many_before else "", word, "los" if many_before else "lo",
                     join_words(after), "n" if many_after else "",
                     "los" if many_after else "lo"))
    elif lemma(tokens[i]) == "banco":
        lesson = ("%s encuentra otra palabra que sirva de pista para %s en esta frase: añade "
                  "una palabra de lugar o de dinero." % (_NEITHER, word))
    else:
        has_banco = any(lemma(w) == "banco" for w in tokens)
        lesson = ("%s encuentra otra palabra que sirva de pista para %s en esta frase. Están "
                  "hechas para «banco»: %s." % (_NEITHER, word, "elige banco en «Consulta»"
                                                if has_banco else "escríbelo en tu frase"))
    return {"title": "Qué encuentra %s" % word, "heads": [f["said"] for f in found],
            "lesson": lesson}


def _fix(corrected):
    """The button that puts the suggested words in, or None."""
    if not corrected:
        return None
    return {"label": "Usar «%s»" % " ".join(corrected), "tokens": corrected}


@reads("sentence", "tokens", "other")
def builder_view(state):
    tokens, other = tokens_of(state), other_tokens(state)
    notice, corrected = unknown_notice(tokens)
    other_notice, other_corrected = unknown_notice(other)
    return {
        "words": _words(tokens),
        "other_words": _words(other),
        "text": " ".join(tokens),
        "other_text": " ".join(other),
        "count": "%d de %d palabras" % (len(tokens), MAX_TOKENS),
        "other_count": "%d de %d palabras" % (len(other), MAX_TOKENS),
        "full": len(tokens) >= MAX_TOKENS,
        "other_full": len(other) >= MAX_TOKENS,
        "single": len(tokens) <= 1,
        "other_single": len(other) <= 1,
        "notice": notice,
        "other_notice": other_notice,
        "fix": _fix(corrected),
        "other_fix": _fix(other_corrected),
    }


@reads()
def vocabulary_view(state):
    """The words the lab knows, by group, each group with the vectors its
    words take."""
    groups = []
    for group, (label, like, words) in GROUPS.items():
        if group == "ambigua":
            rule = "tiene vectores propios en cada cabeza: pregunta por lugar y por dinero"
        elif like:
            rule = "en cada cabeza, q, k y v de «%s»" % like
        else:
            rule = "neutras: q, k y v a cero"
        groups.append({"label": "%s (%d)" % (label, len(words)), "rule": rule,
                       "words": ", ".join(words)})
    return {"title": "Vocabulario: %s" % plural(len(LEXICON), "palabra"),
            "groups": groups}


PARTS = (("builder", builder_view), ("clues", clues_view), ("vocabulary", vocabulary_view))
