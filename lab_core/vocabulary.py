"""The words a reader may type, in groups, and how typed text becomes words.

The lab keeps every number checkable by hand, so a word's vectors are not
learned: a word takes the vectors of its group's model word, one of the six
words of the article (see `LIKE`). «río» is a place, so in every head it has
the q, k and v of «parque»; «préstamo» is money, so it has those of
«crédito». Words of the verbs-and-things groups, and words the lab does not
know, are neutral: q, k and v are zero in every head.

`read_sentence(text)` turns what a reader typed (or a link carries) into the
sentence's words: case folded for the words the lab knows (a capital on the
first word is kept, as written), punctuation dropped, accents kept. It
raises ValueError, in Spanish, for text that cannot be a sentence; a word it
does not know is kept, and `unknown_notice` names it and suggests near
misses.
"""
from __future__ import annotations

import functools
import itertools
import unicodedata

MAX_WORDS = 12
MAX_CHARACTERS = 200
MAX_LETTERS = 30  # the longest Spanish words have about 25 letters

# Group id -> (label, the article word whose vectors its words take or None
# for neutral, its words). The article's six words are here too, each in its
# group, and keep their own vectors (didactic.HEADS).
GROUPS = {
    "ambigua": ("La palabra ambigua", None, ("banco",)),
    "lugar": ("Lugares", "parque", (
        "parque", "río", "orilla", "plaza", "jardín", "paseo", "árbol", "playa", "calle",
        "ciudad", "campo", "bosque", "lago", "mar", "montaña", "puerto", "camino", "pueblo",
        "fuente", "sombra", "césped", "estanque")),
    "dinero": ("Dinero", "crédito", (
        "crédito", "préstamo", "dinero", "cuenta", "hipoteca", "interés", "pagar", "cajero",
        "tarjeta", "ahorro", "euros", "deuda", "sueldo", "cheque", "cobrar", "pago",
        "billete", "transferencia", "recibo")),
    "funcion": ("Palabras de función", "de", (
        "el", "la", "los", "las", "un", "una", "unos", "unas", "de", "del", "al", "a", "en",
        "con", "junto", "y", "o", "que", "me", "mi", "su", "tu", "por", "para", "sin",
        "sobre", "se", "lo", "muy", "cerca")),
    "verbos": ("Verbos", None, (
        "sentarse", "senté", "sentó", "pedir", "pedí", "pidió", "abrir", "abrí", "abrió",
        "esperar", "esperé", "leer", "leí", "leyó", "pasear", "paseamos", "dormir", "comer",
        "jugar", "fui", "fue", "es", "está", "hay", "vi", "quiero")),
    "cosas": ("Personas y cosas", None, (
        "sol", "niño", "niña", "perro", "gato", "libro", "madre", "padre", "amigo", "amiga",
        "gente", "día", "tarde", "mañana", "agua", "pan", "flores", "pájaros")),
}

# word -> its group id, for every word the lab knows (lower case).
GROUP_OF = {word: group for group, (_, _, words) in GROUPS.items() for word in words}
LEXICON = tuple(GROUP_OF)

# The group's model word, for the groups whose words take one's vectors.
LIKE = {group: like for group, (_, like, _) in GROUPS.items() if like}

# Dropped between words: what Spanish text puts around them.
PUNCTUATION = set(".,;:¡!¿?«»\"'()[]-–—…“”‘’/")
INVISIBLE = {"\u200b": "U+200B", "\u200c": "U+200C", "\u200d": "U+200D", "\u2060": "U+2060",
             "\ufeff": "U+FEFF", "\u00ad": "U+00AD"}


def lemma(word):
    """The lexicon's form of a word as written: «Banco» -> «banco»; None if
    the lab does not know it."""
    folded = word.lower()
    return folded if folded in GROUP_OF else None


def group_of(word):
    """The group id of a word as written, or None for a word the lab does not know."""
    found = lemma(word)
    return GROUP_OF[found] if found else None


def _is_digit(char):
    return unicodedata.category(char) == "Nd" or char.isdigit()


def _number_problem(number):  # "3" or "12345": every digit of it quoted
    return "«%s» %s: escribe los números con letras" % (
        number, "es una cifra" if len(number) == 1 else "son cifras")


@functools.lru_cache(maxsize=1024)
def _character_problem(char):
    """Why a character cannot be part of a word, or None for a letter."""
    if char in INVISIBLE:
        return "hay un carácter invisible (%s)" % INVISIBLE[char]
    category = unicodedata.category(char)
    if category in ("Cf", "Cc", "Co", "Cs", "Cn", "Zl", "Zp"):
        if unicodedata.bidirectional(char) in ("RLE", "LRE", "RLO", "LRO", "PDF", "RLI",
                                               "LRI", "FSI", "PDI", "R", "AL") \
                or char in "\u200e\u200f\u061c":
            return "hay un carácter que cambia la dirección del texto (U+%04X)" % ord(char)
        return "hay un carácter de control (U+%04X)" % ord(char)
    if _is_digit(char):
        return _number_problem(char)
    if category.startswith("L"):
        if "LATIN" not in unicodedata.name(char, ""):
            return "«%s» no es una letra del alfabeto latino" % char
        return None
    if char in "<>&=/{}":
        return "«%s» no se usa en una frase: escribe solo palabras" % char
    return "«%s» no es una letra ni un signo de puntuación" % char


def read_sentence(text, label="Tu frase"):
    """Typed text -> the sentence's words (a list of 1 to MAX_WORDS strings).

    A known word is written as the lexicon writes it, except that a capital
    on the first word is kept; an unknown word is kept as written.
    """
    if not isinstance(text, str):
        raise ValueError("%s: escribe la frase como texto" % label)
    if len(text) > MAX_CHARACTERS:
        raise ValueError("%s: la frase tiene %d caracteres; el máximo es %d"
                         % (label, len(text), MAX_CHARACTERS))
    return list(_read(text, label))


@functools.lru_cache(maxsize=64)
def _read(text, label):
    # Every lab.set checks the whole state again, the sentence included:
    # the same text is read once.
    text = unicodedata.normalize("NFC", text)
    words, current = [], []
    for i, char in enumerate(text + " "):
        if char.isspace() or char in PUNCTUATION:
            if current:
                words.append("".join(current))
                current = []
            continue
        # An accent typed apart from its letter («ı» + U+0301, which NFC
        # cannot join): one per letter, never a stack of them.
        if (unicodedata.category(char) == "Mn" and current
                and unicodedata.category(current[-1]) != "Mn"):
            current.append(char)
            continue
        problem = _character_problem(char)
        if problem and _is_digit(char):  # the whole number, not its first digit
            problem = _number_problem("".join(itertools.takewhile(_is_digit, text[i:])))
        if problem:
            raise ValueError("%s: %s" % (label, problem))
        current.append(char)
    if not words:
        raise ValueError("%s: escribe al menos una palabra" % label)
    if len(words) > MAX_WORDS:
        raise ValueError("%s: una frase tiene de 1 a %d palabras; esta tiene %d"
                         % (label, MAX_WORDS, len(words)))
    for word in words:
        if len(word) > MAX_LETTERS:
            raise ValueError("%s: «%s…» tiene más de %d letras"
                             % (label, word[:12], MAX_LETTERS))
    return tuple(_as_written(word, i) for i, word in enumerate(words))


def _as_written(word, position):
    found = lemma(word)
    if found is None:
        return word
    if position == 0 and word[0].isupper():
        return found[0].upper() + found[1:]
    return found


def _plain(word):
    """Without accents or capitals: «Río» -> «rio» (ñ stays ñ)."""
    out = []
    for char in word.lower():
        if char == "ñ":
            out.append(char)
            continue
        out.append("".join(c for c in unicodedata.normalize("NFD", char)
                           if unicodedata.category(c) != "Mn"))
    return "".join(out)


_PLAIN = {}
for _word in LEXICON:
    _PLAIN.setdefault(_plain(_word), _word)


def suggestions(word):
    """Known words a typed one may have meant: a missing or extra accent
    («rio» -> «río»), a plural («bancos» -> «banco», «interéses»…). Empty
    when none is close."""
    plain = _plain(word)
    found = []
    for candidate in (plain, plain[:-1] if plain.endswith("s") else None,
                      plain[:-2] if plain.endswith("es") else None):
        if candidate and candidate in _PLAIN and _PLAIN[candidate] not in found:
            found.append(_PLAIN[candidate])
    return found
