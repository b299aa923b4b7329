"""Didactic data for the block lab ("Posición, Residuales y el Bloque FFN").

The order panel uses one sentence and its word swap; embeddings and head
weights are drawn from a fixed seed with NumPy's legacy RandomState, whose
stream never changes between NumPy versions, so the page (NumPy 1.17) and
the tests (NumPy 2.x) see the same numbers.
"""
from __future__ import annotations

ORDER_SENTENCE = ("El", "perro", "mordió", "al", "hombre")
# "El hombre mordió al perro": same words, perro (1) and hombre (4) swapped.
SWAPPED_ORDER = (0, 4, 2, 3, 1)
ORDER_D_MODEL = 8  # width of the toy embeddings, even so PE can alternate
ORDER_SEED = 7

PANELS = {
    "orden": "1 · La atención no sabe en qué orden van las palabras",
    "posicion": "2 · Codificación posicional sinusoidal",
    "residual": "3 · Conexiones residuales",
    "layernorm": "4 · LayerNorm, pre-norm y post-norm",
    "ffn": "5 · La red feed-forward",
    "bloque": "6 · El bloque completo (pre-norm)",
    "quiz": "7 · Quiz",
}

# The closing quiz: each answer points to the panel that shows why.
QUIZ = (
    {
        "id": "q-orden",
        "question": "Sin codificación posicional, si barajas las palabras de una frase, "
                    "¿qué pasa con el peso de atención entre «perro» y «hombre»?",
        "options": (("igual", "No cambia: solo depende de qué palabras son"),
                    ("cambia", "Cambia, porque las palabras se movieron"),
                    ("cero", "Se anula")),
        "answer": "igual",
        "explanation": "q·k solo mira el contenido de los dos tokens. Las salidas se "
                       "reordenan igual que la entrada, pero cada par conserva su peso.",
        "panel": "orden",
    },
    {
        "id": "q-seno-coseno",
        "question": "¿Para qué alterna la codificación senos y cosenos?",
        "options": (("rango", "Para que los valores queden entre −1 y 1"),
                     ("desplazar", "Para que «k posiciones más allá» sea una misma "
                                   "transformación lineal en cualquier posición"),
                     ("rapidez", "Para calcularla más rápido")),
        "answer": "desplazar",
        "explanation": "Cada par (seno, coseno) se gira con una matriz fija Mₖ. Con "
                       "senos solos ningún mapa lineal fijo hace ese desplazamiento.",
        "panel": "posicion",
    },
    {
        "id": "q-onda",
        "question": "¿Qué par de dimensiones de la codificación cambia más deprisa al "
                    "avanzar una posición?",
        "options": (("ultimo", "El último: longitud de onda cercana a 10000·2π"),
                    ("todos", "Todos por igual"),
                    ("primero", "El primero: longitud de onda 2π")),
        "answer": "primero",
        "explanation": "El denominador 10000^(2i/d_model) vale 1 para i = 0: el primer "
                       "par da una vuelta cada 2π ≈ 6,28 posiciones.",
        "panel": "posicion",
    },
    {
        "id": "q-residual",
        "question": "¿Por qué una conexión residual evita que el gradiente se desvanezca?",
        "options": (("identidad", "Su jacobiano es I + ∂f/∂x: siempre queda un camino "
                                  "directo de tamaño 1"),
                     ("mas-capas", "Porque añade más parámetros"),
                     ("normaliza", "Porque normaliza las activaciones")),
        "answer": "identidad",
        "explanation": "Sin residual el gradiente es un producto de jacobianos pequeños "
                       "y cae exponencialmente; con él, la identidad lo sostiene.",
        "panel": "residual",
    },
    {
        "id": "q-prenorm",
        "question": "¿Qué hace un bloque pre-norm?",
        "options": (("post", "LN(x + Subcapa(x)): suma y luego normaliza"),
                    ("pre", "x + Subcapa(LN(x)): normaliza antes y suma después"),
                    ("nada", "No usa normalización")),
        "answer": "pre",
        "explanation": "Pre-norm (GPT-2, LLaMA) deja la autopista residual sin tocar; "
                       "post-norm fue la elección del Transformer original.",
        "panel": "layernorm",
    },
    {
        "id": "q-sigma",
        "question": "Si quitas la no linealidad σ de la FFN, W2(W1x + b1) + b2 se convierte en…",
        "options": (("cero", "cero"),
                    ("igual", "lo mismo que con σ"),
                    ("afin", "una única transformación afín Ax + b")),
        "answer": "afin",
        "explanation": "Componer dos mapas afines da otro afín: W2(W1x + b1) + b2 = "
                       "(W2·W1)x + (W2·b1 + b2), así que A = W2·W1 y b = W2·b1 + b2. "
                       "Dos capas no valdrían más que una.",
        "panel": "ffn",
    },
    {
        "id": "q-posicion5",
        "question": "¿Qué sabe la FFN en la posición 5 del token en la posición 3?",
        "options": (("nada", "Nada: procesa cada posición por separado"),
                    ("todo", "Todo, igual que la atención"),
                    ("mitad", "Solo su norma")),
        "answer": "nada",
        "explanation": "Toda la comunicación entre posiciones pasa por la atención; la "
                       "FFN computa sobre lo que la atención ya reunió.",
        "panel": "ffn",
    },
    {
        "id": "q-parametros",
        "question": "Con d_ff = 4·d_model, ¿qué parte de los parámetros de un bloque "
                    "se lleva la FFN?",
        "options": (("un-tercio", "Un tercio"),
                    ("mitad", "La mitad"),
                    ("dos-tercios", "Unos dos tercios")),
        "answer": "dos-tercios",
        "explanation": "Atención: 4·d². FFN: 2·d·d_ff + d_ff + d ≈ 8·d². La proporción 2 : 1 "
                       "apenas depende de d_model: las dos crecen como d², y los términos "
                       "que solo crecen como d (sesgos, LayerNorm) pesan cada vez menos.",
        "panel": "bloque",
    },
)
