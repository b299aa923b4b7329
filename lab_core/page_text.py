"""Every word the page's JavaScript shows, written here, in Python.

The page says things before Python is live (the boot's steps, a download's
fault), and its controls have labels that no view carries (a button that
pauses, a table's export). Those words live in this table, not in the
JavaScript: the build writes it into each page as data
(<script type="application/json" id="lab-text">), and the page's `say(key,
values)` (web/js/text.js) fills a template's {names} with values that are
themselves words (a file's label, a word of the sentence) or counts. The
page never formats a number or joins words of its own; a unit test fails on
a page module that holds a Spanish phrase.

Keys are grouped by what speaks: the status line, faults, the classroom
kit, the predictions, the controls.
"""
from __future__ import annotations

import re

RETRY = "Pulsa «Reintentar»; lo que ya llegó no se vuelve a descargar."

TEXT = {
    # The status line while the lab gets ready, step by step.
    "step.manifest": "Preparando la descarga",
    "step.download": "Descargando Python y NumPy",
    "step.worker": "Arrancando Python en tu navegador",
    "step.python": "Arrancando Python en tu navegador",
    "step.numpy": "Preparando NumPy",
    "step.lab": "Cargando el laboratorio",
    "step.start": "Preparando Python en tu navegador",
    "step.ongoing": "{step}…",
    "step.counted": "{step} ({n} de {total})",
    "step.file": "{step} ({size})",
    "status.ready": "Listo: Python calcula en vivo.",
    "status.applying": "Listo: Python calcula en vivo; aplicando tu cambio…",
    "status.failed": "No se pudo arrancar el laboratorio.",
    "status.failed_again": "Ha vuelto a fallar (intento {n}).",
    "note.prepared": "Vista preparada, ya puedes usarla.",
    "note.approximate": "Vista aproximada: tu enlace se aplicará en cuanto Python esté listo.",
    "note.pending": "Cambio pendiente: se aplicará en cuanto Python esté listo.",
    "runtime.bundled": "Pyodide {pyodide} · Python {python} · NumPy {numpy} (incluido en la "
                       "página, sin descargas externas)",
    "runtime.other": "Pyodide {pyodide} · Python {python} · NumPy {numpy} (entorno «{name}», "
                     "sin descargas externas)",

    # Faults: what failed, why, what to do. {what} is a file's label from the
    # manifest; feminine labels («la biblioteca…») take the _f forms.
    "fault.network": "No se pudo descargar {what}: se cortó la conexión con el servidor.",
    "fault.network.advice": "Comprueba tu conexión a internet. " + RETRY,
    "fault.http.404": "{What} no está en el servidor (error 404).",
    "fault.http.403": "{What} no está permitido en el servidor (error 403).",
    "fault.http.500": "{What} falló en el servidor (error 500).",
    "fault.http.502": "{What} no llegó: el servidor intermedio falló (error 502).",
    "fault.http.503": "{What} no llegó: el servidor no está disponible ahora (error 503).",
    "fault.http.504": "{What} no llegó a tiempo desde el servidor (error 504).",
    "fault.http.other": "{What} no llegó (el servidor respondió con el error {status}).",
    "fault.http.server.advice": "Es un fallo del servidor: espera un momento y pulsa «Reintentar»; "
                                "lo que ya llegó no se vuelve a descargar.",
    "fault.http.advice": "Avisa a quien publicó el laboratorio. Mientras tanto puedes leer la "
                         "vista preparada.",
    "fault.truncated": "{What} llegó incompleto: la descarga se quedó a medias.",
    "fault.truncated_f": "{What} llegó incompleta: la descarga se quedó a medias.",
    "fault.corrupt": "{What} llegó dañado: su contenido no es el publicado.",
    "fault.corrupt_f": "{What} llegó dañada: su contenido no es el publicado.",
    "fault.corrupt.advice": "Pulsa «Reintentar» para descargarlo de nuevo.",
    "fault.corrupt.advice_f": "Pulsa «Reintentar» para descargarla de nuevo.",
    "fault.timeout.file": "La descarga {of} lleva 30 segundos sin avanzar.",
    "fault.timeout.python": "Python lleva 30 segundos sin avanzar al arrancar.",
    "fault.timeout.advice": "Si tu conexión es lenta, espera un poco. " + RETRY,
    "fault.script": "No se pudo cargar {what}.",
    "fault.script.advice": "Comprueba la conexión. " + RETRY,
    "fault.numpy": "El entorno «{name}» arrancó, pero no tiene NumPy, la biblioteca de cálculo.",
    "fault.numpy.advice": "Su NumPy no está publicado en ningún registro de paquetes ni en este "
                          "servidor. Usa el entorno incluido (enlace de la derecha), o copia una "
                          "rueda de NumPy para él en wheels-current/ y vuelve a construir el sitio.",
    "fault.numpy.detail": "Pyodide {pyodide}, Python {python}: {message}",
    "fault.runtime": "Python no pudo arrancar en este navegador.",
    "fault.runtime.advice": RETRY + " Si vuelve a fallar, prueba con otro navegador actualizado.",
    "fault.detail": "{url}: {message}",
    "fault.page": "No se pudo cargar el programa de esta página.",
    "fault.page.advice": "Comprueba tu conexión y pulsa «Reintentar». Si sigue fallando, avisa a "
                         "quien publicó el laboratorio.",
    "file.manifest": "la lista de archivos del laboratorio",
    "file.manifest.cap": "La lista de archivos del laboratorio",
    "file.manifest.of": "de la lista de archivos del laboratorio",
    "file.worker": "el programa que ejecuta Python",
    "file.worker.cap": "El programa que ejecuta Python",
    "file.worker.of": "del programa que ejecuta Python",
    # Technical details (folded under «Detalle técnico»).
    "detail.stalled": "sin datos durante 30 s",
    "detail.short": "llegaron {received} bytes de {size}",
    "detail.digest": "SHA-256 {got}… en vez de {want}…",
    "detail.json": "no es JSON válido",
    "detail.worker_stopped": "el proceso de Python se detuvo",
    "detail.worker_script": "no se pudo cargar js/worker.js",
    "detail.step_stalled": "el paso «{step}» lleva 30 s sin avanzar",
    "detail.disordered": "respuesta de Python desordenada",
    "detail.no_numpy": "numpy no está disponible",
    "detail.script": "no se pudo cargar {src} (o uno de los módulos que importa)",
    "detail.never_ran": "la página cargó, pero js/main.js no llegó a ejecutarse",
    "detail.no_answer": "js/main.js no respondió en 30 s",

    # lab.set's own checks, before anything travels to Python.
    "set.object": "lab.set espera un objeto simple, por ejemplo {mask: 'causal'}",
    "set.inherited": "lab.set: «{key}» es una propiedad heredada, no del objeto",
    "set.value": "lab.set: «{key}» {problem}, y no se puede enviar a Python",
    "set.deep": "anida demasiados niveles",
    "set.number": "{value} no es un número JSON",
    "set.undefined": "vale undefined",
    "set.function": "es una función",
    "set.type": "es de un tipo que JSON no tiene",
    "set.plain": "no es un objeto simple",
    "set.refused": "No se aplicó el cambio. {error}.",
    "set.error": "{error}.",
    "notice.runtime": "Se ignoró runtime=«{asked}»: los entornos son «bundled» y «current». "
                      "Se usa «{name}».",
    "notice.embed.none": "Se ignoró embed=1: hace falta un panel de esta página en «panel» (no "
                         "había ninguno); se muestra la página completa.",
    # The service worker served the page's files from its saved copy (sw.js).
    "notice.offline": "Sin conexión: usando la copia guardada de la página; los cálculos "
                      "siguen en vivo.",
    "notice.embed.unknown": "Se ignoró embed=1: hace falta un panel de esta página en «panel» "
                            "(«{panel}» no existe); se muestra la página completa.",

    # The classroom kit.
    "theme": "Tema: {name}",
    "theme.said": "Tema {name}.",
    "theme.auto": "automático",
    "theme.light": "claro",
    "theme.dark": "oscuro",
    "copied": "{what} se ha copiado al portapapeles.",
    "copy.manual": "{what}: el navegador no deja copiar aquí; selecciónalo y cópialo tú.",
    "copy.link": "El enlace",
    "copy.link.done": "Enlace copiado",
    "copy.teacher": "El enlace con respuestas",
    "copy.done": "Copiado: {format}",
    "copy.snippet": "El código para insertar",
    "copy.table": "La tabla en {format}",
    "reset.done": "Vuelta al ejercicio del artículo",
    "reset.said": "Vuelta al estado del artículo.",
    "embed.title": "Laboratorio · {panel}",
    "export.preparing": "Preparando la exportación…",
    "export.waiting": "La exportación estará disponible en cuanto Python esté listo.",
    "export.failed": "No se pudo exportar: {error}",
    "export.label": "Exportar la tabla «{caption}»",
    "export.button": "Exportar",
    "export.downloaded": "CSV descargado.",
    "figure.label": "Descargar la figura «{name}»",
    "figure.downloaded": "Figura descargada.",
    "exercise.ready": "Ejercicio listo: puntuación de «{query}» → «{key}», {score}; peso, {weight}.",
    "exercise.veiled": "Ejercicio listo: puntuación de «{query}» → «{key}», {score}. Los pesos "
                       "esperan tu predicción, encima de las tablas.",
    "panel.said": "Panel {title}.",

    # Tables and grids.
    "table.pick": "Elegir «{label}»",
    "table.cell": "Ver la cuenta de «{row}» → «{column}»",
    "table.scrolls": "{caption} (desliza para ver más columnas)",
    "table.unnamed": "Tabla",
    "grid.focus": "{caption}: fila {row}, columna {column}, {value}. Pulsa Intro para ver su cuenta.",

    # The predictions.
    "predict.kicker": "Predice antes de mirar",
    "predict.quiz": "Pregunta",
    "predict.skip": "Mostrar sin predecir",
    "predict.right": "¡Bien visto! {explanation}",
    "predict.wrong": "Tu predicción no acertó. {explanation}",
    "predict.skipped": "Sin predecir. {explanation}",
    "predict.teacher": "Respuesta: {explanation}",
    "predict.again": "Ya respondiste esta pregunta antes, con otros ajustes: el resultado queda "
                     "a la vista. Puedes volver a predecir.",

    # The sentence builder and the vector editor.
    "chip.left": "Mover «{word}» (posición {i}) a la izquierda",
    "chip.right": "Mover «{word}» (posición {i}) a la derecha",
    "chip.remove": "Quitar «{word}» (posición {i})",
    "chip.left.other": "Mover «{word}» (posición {i} de la frase para comparar) a la izquierda",
    "chip.right.other": "Mover «{word}» (posición {i} de la frase para comparar) a la derecha",
    "chip.remove.other": "Quitar «{word}» (posición {i} de la frase para comparar)",
    "chip.unknown": " (no la conozco)",
    "vectors.of": "Vectores de",
    "vectors.word": "palabra",
    "vectors.q": "q (consulta)",
    "vectors.k": "k (clave)",
    "vectors.v": "v (valor)",
    "vectors.field": "{label}, coordenada {n}",
    "vectors.original": "artículo: {value}",
    "vectors.reset": "Restablecer los vectores de «{head}»",

    # The training player.
    "play": "Reproducir",
    "train": "Entrenar",
    "pause": "Pausa",
    "play.ask": "Antes de reproducir, responde la pregunta (o pulsa «Mostrar sin predecir»).",
}

PLACEHOLDER = re.compile(r"\{(\w+)\}")


def placeholders(key):
    """The names a template fills: 'chip.left' -> {'word', 'i'}."""
    return set(PLACEHOLDER.findall(TEXT[key]))
