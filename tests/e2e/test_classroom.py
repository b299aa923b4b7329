"""The classroom kit: share, embed, export, print, themes, keyboard, contrast,
and an accessibility audit (axe-core) with no serious finding."""
import json
import re

import pytest
from axe_playwright_python.sync_playwright import Axe

from lab_core import attention_lab
from lab_core.export import spreadsheet_text
from lab_core.views import answer

from conftest import text, URL_SHOWS_VIEW

ATTENTION_PANELS = ["puntuacion", "mezcla", "cabezas", "mascara", "rope", "entrenamiento", "cache"]
BLOCK_PANELS = ["orden", "posicion", "residual", "layernorm", "ffn", "bloque", "quiz"]
HOSTILE = '"><img src=x onerror="window.pwned=1"></textarea><b>'


def clipboard(lab):
    lab.page.context.grant_permissions(["clipboard-read", "clipboard-write"])


def read_clipboard(lab):
    return lab.page.evaluate("navigator.clipboard.readText()")


def serious(page):
    results = Axe().run(page)
    return [(v["id"], v["impact"], len(v["nodes"])) for v in results.response["violations"]
            if v["impact"] in ("serious", "critical")]


# ------------------------------------------------------------------ share

def test_copy_the_link_and_reset_to_the_article(lab):
    clipboard(lab)
    lab.open(lab.base_url, "?mask=bidirectional&head=finanzas&query=3")
    tools = lab.page.locator(".share-tools")
    tools.get_by_role("button", name="Copiar enlace").click()
    lab.page.wait_for_function(
        "() => document.querySelector('.share-tools .confirm').textContent.length > 0")
    assert text(tools.locator(".confirm")) == "Enlace copiado"
    assert read_clipboard(lab) == lab.page.url
    # What a screen reader hears: a whole sentence (it read «El enlace copiado …»).
    assert text(lab.page.locator("#announce")) == "El enlace se ha copiado al portapapeles."
    tools.get_by_role("button", name="Restablecer").click()
    lab.settle()
    state = lab.state()
    default = attention_lab.SPEC.default_state()
    assert {k: state[k] for k in ("mask", "head", "query")} == {
        k: default[k] for k in ("mask", "head", "query")}
    assert lab.search() == ""


@pytest.mark.cold
def test_a_link_copied_or_left_right_after_a_change_carries_it(lab):
    # A change's URL is written once the changes pause (url.js), and at once
    # when something reads it. Each click below runs in the same task as the
    # change, before any timer could write the URL.
    clipboard(lab)
    lab.open(lab.base_url)
    lab.page.evaluate("""async () => {
      await window.lab.set({mask: 'bidirectional', theta: 1.2});
      document.querySelector('.share-tools [data-classroom="copy-link"]').click();
    }""")
    lab.page.wait_for_function(
        "() => document.querySelector('.share-tools .confirm').textContent.length > 0")
    copied = read_clipboard(lab)
    assert "mask=bidirectional" in copied and "theta=1.2" in copied
    assert copied == lab.page.evaluate("location.href")
    # Leaving the page writes it too: «atrás» comes back to the state left.
    # The click comes in the task where the change is drawn; the evaluate
    # itself returns first (a script that navigates before it returns races
    # with the navigation: «Execution context was destroyed», seen in CI).
    with lab.page.expect_navigation():
        lab.page.evaluate("""() => {
          window.lab.set({head: 'finanzas'}).then(() =>
            document.querySelector('.site-nav a[href="bloque.html"]').click());
        }""")
    lab.page.go_back()
    lab.page.evaluate("window.lab.ready")
    assert "head=finanzas" in lab.page.evaluate("location.search")
    assert lab.state()["head"] == "finanzas"


def test_a_value_typed_then_copied_is_in_the_link(lab):
    # The field's change is sent when pressing the button takes the focus
    # away: the copy waits for it.
    clipboard(lab)
    lab.open(lab.base_url + "bloque.html")
    lab.page.get_by_role("textbox", name="Profundidad").fill("30")
    lab.page.locator(".share-tools").get_by_role("button", name="Copiar enlace").click()
    lab.page.wait_for_function(
        "() => document.querySelector('.share-tools .confirm').textContent.length > 0")
    assert "depth=30" in read_clipboard(lab)
    assert lab.state()["depth"] == 30


def test_a_panel_link_adds_no_history_entry(lab):
    # «atrás» after a panel link leaves the page, as after any other change,
    # instead of changing the address and not the screen.
    lab.open(lab.base_url)
    before = lab.page.evaluate("history.length")
    lab.page.locator(".panel-nav a[data-panel='mascara']").click()
    lab.settle()
    assert lab.state()["panel"] == "mascara"
    assert lab.page.evaluate("[history.length, location.hash]") == [before, "#mascara"]
    assert "panel=mascara" in lab.url()


@pytest.mark.cold
def test_copying_without_a_clipboard_shows_the_text_to_select(lab):
    lab.page.add_init_script("""Object.defineProperty(navigator, 'clipboard', {value: {
        writeText: () => Promise.reject(new Error('denied'))}});""")
    lab.open(lab.base_url, "?mask=bidirectional")
    lab.page.locator(".share-tools").get_by_role("button", name="Copiar enlace").click()
    dialog = lab.page.locator("#text-dialog")
    dialog.wait_for(state="visible")
    assert dialog.locator("textarea").input_value() == lab.page.url
    assert "selecciónalo y cópialo tú" in text(dialog.locator(".dialog-title"))
    selected = lab.page.evaluate(
        "(() => { const t = document.getElementById('text-box'); "
        "return t.value.slice(t.selectionStart, t.selectionEnd); })()")
    assert selected == lab.page.url


# ------------------------------------------------------------------ embed

def test_an_embedded_panel_shows_only_itself_and_its_controls(lab):
    lab.open(lab.base_url, "?embed=1&panel=mascara&mask=bidirectional")
    page = lab.page
    assert page.locator(".masthead").is_hidden() and page.locator(".exercise").is_hidden()
    assert page.locator("#mascara").is_visible() and page.locator("#puntuacion").is_hidden()
    assert page.get_by_label("Máscara", exact=True).is_visible()
    assert page.get_by_label("Clave", exact=True).is_hidden()  # the mask panel does not read it
    whole = page.get_by_role("link", name="Abrir el laboratorio completo ↗")
    assert "embed" not in whole.get_attribute("href")
    lab.choose("Máscara", "causal")
    url = lab.url()
    assert "embed=1" in url and "panel=mascara" in url
    assert "mask" not in whole.get_attribute("href")
    lab.open(lab.base_url, "?embed=1&panel=rope")
    assert page.locator("#controls").is_hidden()  # RoPE reads none of the main controls


@pytest.mark.parametrize("page_name, panel", [("", "puntuacion"), ("bloque.html", "orden")])
def test_an_embed_of_the_first_panel_stays_one_after_a_reload(lab, page_name, panel):
    # The first panel is the default one, left out of the canonical address;
    # an embed keeps it, or a reload would show the whole lab.
    lab.open(lab.base_url + page_name, "?embed=1&panel=%s" % panel)
    assert "panel=%s" % panel in lab.search()
    lab.page.reload()
    lab.page.evaluate("window.lab.ready")
    assert lab.page.evaluate("document.body.dataset.embed") == panel
    assert lab.notices() == []


@pytest.mark.cold
def test_an_embed_works_inside_an_iframe(lab):
    src = lab.base_url + "?embed=1&panel=puntuacion&mask=bidirectional"
    lab.page.set_content('<iframe src="%s" title="lab" width="800" height="700"></iframe>' % src)
    frame = lab.page.frame_locator("iframe")
    inner = lab.page.frames[1]
    inner.evaluate("window.lab.ready")
    assert inner.evaluate("window.lab.state.mask") == "bidirectional"
    assert text(frame.locator("#table-scores tbody tr").nth(1).locator("td").nth(3)) == "1,41"
    inner.evaluate("window.lab.set({mask: 'causal'}).then(() => window.lab.settled())")
    inner.wait_for_function(URL_SHOWS_VIEW)
    assert "mask" not in inner.evaluate("location.search")


def test_an_unknown_embed_panel_shows_the_whole_page_with_a_notice(lab):
    lab.open(lab.base_url, "?embed=1&panel=cocina")
    assert lab.page.locator(".masthead").is_visible()
    assert any("Se ignoró embed=1" in n for n in lab.notices())


def test_the_embed_snippet_is_for_the_current_view_and_cannot_be_injected(lab):
    lab.open(lab.base_url, "?mask=bidirectional&head=" + HOSTILE.replace("&", "%26"))
    lab.page.locator("#rope").get_by_role("button", name=re.compile("^Insertar")).click()
    code = lab.page.locator("#embed-dialog textarea").input_value()
    assert code.startswith('<iframe src="%s?mask=bidirectional&amp;embed=1&amp;panel=rope"'
                           % lab.base_url)
    assert "<img" not in code and "</textarea>" not in code and code.count("<iframe") == 1
    # Hostile text anywhere in the URL stays escaped.
    lab.page.evaluate("history.replaceState(null, '', location.pathname + '?x=' + "
                      "encodeURIComponent(%s))" % json.dumps(HOSTILE))
    lab.page.locator("#embed-dialog").get_by_role("button", name="Cerrar").click()
    lab.page.locator("#rope").get_by_role("button", name=re.compile("^Insertar")).click()
    code = lab.page.locator("#embed-dialog textarea").input_value()
    assert "<img" not in code and code.count('"') == 14  # seven attributes, none closed early
    assert lab.page.evaluate("window.pwned") is None
    assert lab.page.locator("img").count() == 0


# ----------------------------------------------------------------- export

@pytest.mark.cold
def test_every_table_exports_exactly_what_it_shows(lab):
    clipboard(lab)
    lab.open(lab.base_url, "?mask=bidirectional")
    state = lab.state()
    expected = answer(json.dumps({"lab": "attention", "from": "export", "state": state,
                                  "table": "scores", "link": lab.page.url}))["export"]
    assert "1,41" in expected["csv"] and "−∞" not in expected["csv"]
    lab.page.get_by_role("button", name="Exportar la tabla «Puntuaciones»").click()
    dialog = lab.page.locator("#export-dialog")
    dialog.get_by_role("button", name="Copiar CSV").wait_for()
    lab.page.wait_for_function("() => !document.querySelector('#export-dialog [data-format]').disabled")
    for name, key in (("Copiar CSV", "csv"), ("Copiar Markdown", "markdown"),
                      ("Copiar LaTeX", "latex")):
        dialog.get_by_role("button", name=name).click()
        lab.page.wait_for_function("(t) => navigator.clipboard.readText().then((c) => c === t)",
                                   arg=expected[key])
        # Seen, not only heard: «Copiado» in the dialog.
        lab.page.wait_for_function(
            "(t) => document.querySelector('#export-dialog .export-status').textContent === t",
            arg="Copiado: " + name.split()[1])
    with lab.page.expect_download() as info:
        dialog.get_by_role("button", name="Descargar CSV").click()
    download = info.value
    assert download.suggested_filename == "puntuaciones.csv"
    assert open(download.path(), encoding="utf-8-sig", newline="").read() == expected["csv"]
    # The exported table reads like the one on screen, cell by cell (a number
    # spelled as a spreadsheet reads one: −2,83 -> -2,83; test_export.py).
    dialog.get_by_role("button", name="Cerrar").click()
    table, context = expected["csv"].split("\r\n\r\n")
    assert context == "Estado;%s\r\nEnlace;%s\r\n" % (
        "Frase: El banco del parque · Consulta: banco · Clave: parque · Máscara: bidireccional · "
        "Cabeza: pista de lugar", lab.page.url)
    rows = [line.split(";") for line in table.split("\r\n")]
    shown = lab.table("Puntuaciones")
    assert list(shown) == [row[0] for row in rows[1:]], (list(shown), rows)
    for row in rows[1:]:
        assert [spreadsheet_text(text) for text in shown[row[0]]] == row[1:]


def test_latex_export_escapes_and_spells_symbols():
    view = attention_lab.LAB.build_view(attention_lab.SPEC.default_state())
    from lab_core.export import export_table
    latex = export_table(view, "scores")["latex"]
    assert "$-\\infty$" in latex and "consulta \\textbackslash{} clave" in latex
    assert "\\begin{tabular}{lrrrr}" in latex


def test_figures_download_as_files(lab):
    lab.open(lab.base_url, "?panel=rope")
    with lab.page.expect_download() as info:
        lab.page.locator("#rope .rope-figure").get_by_role("button", name="Descargar la figura").click()
    assert info.value.suggested_filename == "rope-giro.svg"
    text = open(info.value.path(), encoding="utf-8").read()
    assert text.startswith("<svg") and "qₘ" in text and 'stroke="' in text
    lab.open(lab.base_url + "bloque.html")
    with lab.page.expect_download() as info:
        lab.page.locator("#posicion").get_by_role("button", name="Descargar la figura").click()
    assert info.value.suggested_filename == "codificacion-posicional.png"


def test_a_head_view_downloads_with_its_words_and_its_paper(lab):
    # The words are HTML beside the lines: the file draws them as text, on
    # the page's background (the lines alone were an unreadable tangle, and
    # light lines on nothing in the dark theme).
    console = []
    lab.page.on("console", lambda message: console.append((message.type, message.text)))
    lab.open(lab.base_url).look()
    with lab.page.expect_download() as info:
        lab.page.locator("#puntuacion .hv-figure").get_by_role("button", name="Descargar la figura").click()
    assert info.value.suggested_filename == "vista-de-la-cabeza.svg"
    svg = open(info.value.path(), encoding="utf-8").read()
    words = re.findall(r"<text(?![^>]*figure-)[^>]*>([^<]*)</text>", svg)
    assert words == ["El", "banco", "del", "parque"] * 2
    # It says what it shows and for which state, as the page does.
    assert re.search(r'<text [^>]*class="figure-title"[^>]*>Vista de la cabeza: a qué clave mira cada consulta</text>', svg)
    state = re.search(r'<text [^>]*class="figure-state"[^>]*>([^<]*)</text>', svg).group(1)
    assert state == lab.page.evaluate("JSON.parse(window.py_view_data).view.state_line")
    assert state.startswith("Frase: El banco del parque · Consulta: banco")
    assert re.search(r'<rect [^>]*fill="rgb\(\d+, \d+, \d+\)"', svg)
    assert svg.count("<line") == lab.page.locator("#puntuacion .headview line").count() > 0
    assert "style=" not in svg
    # A press right after a change (still on its way to Python) saves the
    # figure of that change, not the one it replaces.
    lines = svg.count("<line")
    with lab.page.expect_download() as info:
        lab.page.evaluate("""() => {
          window.lab.set({head: 'all'});
          document.querySelector('#puntuacion .hv-figure .figure-download').click();
        }""")
    early = open(info.value.path(), encoding="utf-8").read()
    lab.settle()
    assert lab.state()["head"] == "all"
    with lab.page.expect_download() as info:
        lab.page.locator("#puntuacion .hv-figure").get_by_role("button", name="Descargar la figura").click()
    settled = open(info.value.path(), encoding="utf-8").read()
    assert early == settled and early.count("<line") > lines
    # A chart with several lines keeps its key (HTML under it on the page).
    with lab.page.expect_download() as info:
        lab.page.locator("#aprende figure[data-figure='perdida-entrenamiento']").get_by_role(
            "button", name="Descargar la figura").click()
    chart = open(info.value.path(), encoding="utf-8").read()
    key = [text(item) for item in lab.page.locator("#aprende figure[data-figure='perdida-entrenamiento'] .chart-legend li").all()]
    assert len(key) == 2 and all(re.search(r"<text[^>]*>%s</text>" % re.escape(name.strip()), chart) for name in key), key
    assert [m for m in console if m[0] == "error"] == []  # the policy refuses inline styles


# ------------------------------------------------------------------ print

def test_print_hides_the_controls_and_writes_the_state(lab):
    lab.open(lab.base_url, "?mask=bidirectional")
    lab.page.emulate_media(media="print")
    assert lab.page.locator("#lab-bar").is_hidden()
    assert lab.page.locator(".panel-nav").is_hidden()
    line = lab.page.locator(".print-state")
    assert line.is_visible()
    assert ("Frase: El banco del parque · Consulta: banco · Clave: parque · "
            "Máscara: bidireccional · Cabeza: pista de lugar") in text(line)
    assert lab.page.url in text(line)
    # On paper what a question hides is printed: no cover, nothing hidden.
    veiled = lab.page.locator(".veiled")
    assert veiled.count() > 0
    assert veiled.evaluate_all("(nodes) => nodes.map((e) => [getComputedStyle(e).visibility, "
                               "getComputedStyle(e, '::after').content])") == [["visible", "none"]] * veiled.count()
    # Each question prints its options and its answer (the buttons do not).
    answers = lab.page.locator(".predict-answer")
    assert answers.count() == lab.page.locator(".predict[data-render]").count() > 3
    for i in range(answers.count()):
        assert answers.nth(i).is_visible()
        assert re.fullmatch(r"Opciones: .+\. .+", text(answers.nth(i))), text(answers.nth(i))
    mask = lab.page.locator("#mascara .predict-answer")
    # Python's explanation names the answer first: «Es idéntica: …» or «Cambia: …».
    assert re.match(r"Opciones: sí, cambia · no, es idéntica\. (Es idéntica|Cambia): ", text(mask))
    assert lab.page.locator(".predict-options").first.is_hidden()
    # Paper shows no form field: the vector editor's values print as text.
    fields = lab.page.locator("main input, main select, main textarea")
    assert fields.count() > 24
    assert fields.evaluate_all("(nodes) => nodes.filter((n) => n.getClientRects().length)") == []
    editor = lab.page.locator(".vec-table").first
    printed = editor.locator(".print-value")
    assert printed.count() == 24  # the sentence's 4 words, their q, k and v, 2 numbers each
    assert printed.evaluate_all("(nodes) => nodes.map((n) => n.getClientRects().length > 0)") == [True] * 24
    assert text(editor.locator("tbody tr").nth(3)).split() == ["parque", "(1;0)", "(2;0)", "(1;0)"]
    lab.page.emulate_media(media="screen")
    assert answers.first.is_hidden()
    lab.page.emulate_media(media="print")
    pdf = lab.page.pdf()
    assert pdf[:4] == b"%PDF"


# An A4 page with the browser's 1 cm margins is 19 cm wide: 718 CSS pixels.
A4_WIDTH = 718
WIDER_THAN_PAPER = """(width) => [...document.querySelectorAll('main table')]
  .filter((t) => t.getClientRects().length && t.getBoundingClientRect().right > width + 0.5)
  .map((t) => t.id)"""


@pytest.mark.parametrize("name,query", [
    ("", "?head=all&panel=cache"),  # the widest: one vector per head in each cell
    ("", "?head=all&tokens=El;banco;del;parque;de;cr%C3%A9dito;El;banco"),
    ("bloque.html", "?d_model=768"),
])
def test_every_table_fits_an_a4_page(lab, name, query):
    # Paper does not scroll: a column past the edge is lost.
    lab.page.set_viewport_size({"width": A4_WIDTH, "height": 1000})
    lab.open(lab.base_url + name, query)
    lab.page.emulate_media(media="print")
    assert lab.page.locator("main table").count() > 3
    assert lab.page.evaluate(WIDER_THAN_PAPER, A4_WIDTH) == []
    # Each table keeps its own width: none is spread wider than its columns
    # need (what it takes with no room to spare, measured as max-content).
    assert lab.page.evaluate(STRETCHED) == []


STRETCHED = """() => [...document.querySelectorAll('main table')]
  .filter((t) => t.getClientRects().length)
  .filter((t) => {
    const width = t.getBoundingClientRect().width;
    const copy = t.cloneNode(true);
    copy.removeAttribute('id');
    copy.style.cssText = 'position:absolute; width:max-content; min-width:0; visibility:hidden';
    t.parentElement.append(copy);
    const natural = copy.getBoundingClientRect().width;
    copy.remove();
    return width > natural + 1;
  })
  .map((t) => t.id)"""


@pytest.mark.parametrize("how", ["system", "toggle"])
def test_a_dark_screen_prints_dark_ink_on_white_paper(lab, how):
    # Browsers do not print backgrounds: light ink would vanish on paper.
    if how == "system":
        lab.page.emulate_media(color_scheme="dark")
        lab.open(lab.base_url)
    else:
        lab.open(lab.base_url)
        lab.page.evaluate("document.documentElement.dataset.theme = 'dark'")
    ink = "() => getComputedStyle(document.querySelector('#puntuacion td')).color"
    assert lab.page.evaluate(ink) == "rgb(230, 233, 239)"  # the dark theme, on screen
    lab.page.emulate_media(media="print")
    assert lab.page.evaluate(ink) == "rgb(0, 0, 0)"
    assert lab.page.evaluate("() => getComputedStyle(document.body).backgroundColor") in (
        "rgb(255, 255, 255)", "rgba(0, 0, 0, 0)")


# --------------------------------------------------- themes and contrast

CONTRAST = """() => {
  const channel = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  const parse = (text) => (text.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  const blend = (top, bottom) => {
    const a = top.length > 3 ? top[3] : 1;
    return [0, 1, 2].map((i) => top[i] * a + bottom[i] * (1 - a));
  };
  const background = (node) => {
    const layers = [];
    for (let e = node; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c.length > 3 && c[3] === 0) continue;
      layers.push(c);
      if (c.length === 3 || c[3] === 1) break;
    }
    let color = parse(getComputedStyle(document.documentElement).backgroundColor);
    if (color.length > 3 && color[3] === 0) color = [255, 255, 255];
    for (const layer of layers.reverse()) color = blend(layer, color);
    return color;
  };
  const bad = [];
  for (const node of document.querySelectorAll('main *, header *, footer *')) {
    const own = [...node.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || !node.offsetParent || node.closest('[hidden], .veiled, [aria-hidden="true"]')) continue;
    const style = getComputedStyle(node);
    if (parseFloat(style.opacity) < 1 || style.visibility !== 'visible') continue;
    if (node.closest('.pending') || node.disabled || node.closest(':disabled')) continue;
    const fg = blend(parse(style.color), background(node));
    const bg = background(node);
    const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    const ratio = (a + 0.05) / (b + 0.05);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && parseInt(style.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5)) bad.push([node.tagName, node.className, node.textContent.trim().slice(0, 30), ratio.toFixed(2)]);
  }
  return bad;
}"""


@pytest.mark.cold
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("page_name", ["", "bloque.html"])
def test_text_and_heat_cells_meet_aa_contrast(lab, scheme, page_name):
    lab.page.emulate_media(color_scheme=scheme)
    query = "?mask=bidirectional&head=all" if page_name == "" else ""
    lab.open(lab.base_url + page_name, query)
    if page_name == "":
        lab.page.locator("#puntuacion").get_by_role("button", name="Mostrar sin predecir").click()
    background = lab.page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
    assert (background == "rgb(15, 18, 24)") == (scheme == "dark")
    assert lab.page.evaluate(CONTRAST) == []


def test_the_theme_toggle_overrides_the_system_and_is_kept(lab):
    lab.page.emulate_media(color_scheme="light")
    lab.open(lab.base_url)
    toggle = lab.page.locator("#theme-toggle")
    assert text(toggle) == "Tema: automático"
    toggle.click()  # on a light system, the first press shows the dark theme
    assert text(toggle) == "Tema: oscuro"
    assert lab.page.evaluate("getComputedStyle(document.documentElement).backgroundColor") == \
        "rgb(15, 18, 24)"
    lab.open(lab.base_url)
    assert text(lab.page.locator("#theme-toggle")) == "Tema: oscuro"


def test_colour_is_never_the_only_carrier(lab):
    lab.open(lab.base_url)
    masked = lab.page.locator("#table-scores td.masked").first
    assert text(masked) == "−∞"
    assert "repeating-linear-gradient" in masked.evaluate("(e) => getComputedStyle(e).backgroundImage")
    bar = lab.page.locator("#table-scores tr.selected th").evaluate(
        "(e) => getComputedStyle(e).boxShadow")
    assert "5px 0px 0px 0px" in bar  # a bar at the row's start, besides the colour
    focus = lab.page.locator("#table-scores td.focus").evaluate(
        "(e) => [getComputedStyle(e).outlineWidth, getComputedStyle(e, '::after').content]")
    assert focus[0] == "3px" and "●" in focus[1]


# ------------------------------------------------------- keyboard, voice

def test_a_score_table_is_one_tab_stop_and_arrows_move_without_changing_the_state(lab):
    lab.open(lab.base_url, "?mask=bidirectional")
    table = lab.page.locator("#table-scores")
    stops = table.locator("[tabindex='0']")
    assert stops.count() == 1 and text(stops.first) == "1,41"  # banco → parque
    stops.first.focus()
    lab.page.keyboard.press("ArrowLeft")
    lab.page.keyboard.press("ArrowUp")
    focused = lab.page.evaluate("document.activeElement.textContent")
    assert focused == "0,71"  # El → del
    assert (lab.state()["query"], lab.state()["key"]) == (1, 3)  # moving focus changes nothing
    assert "fila El, columna del" in text(lab.page.locator("#announce"))
    lab.page.keyboard.press("Enter")
    lab.settle()
    assert (lab.state()["query"], lab.state()["key"]) == (0, 2)
    assert text(lab.page.locator("#puntuacion .formula")) == "(0·0 + 1·1) / √2 ≈ 0,71"
    lab.page.keyboard.press("Tab")
    assert lab.page.evaluate("!document.getElementById('table-scores').contains(document.activeElement)")


def test_the_row_names_of_a_table_are_one_tab_stop(lab):
    # Panel 3's tables pick the query from their row names: one stop per
    # table (the query's row), ↑ ↓ Home End move, Enter picks.
    lab.open(lab.base_url, "?mask=bidirectional&head=all")
    output = lab.page.locator("#table-mha-out")
    stops = output.locator("[tabindex='0']")
    assert stops.count() == 1 and text(stops.first) == "banco"
    # With «todas», Tab goes from the concatenation's one stop to the output's
    # export button, and then to its one stop.
    lab.page.locator("#table-concat [tabindex='0']").focus()
    lab.page.keyboard.press("Tab")
    assert lab.page.evaluate("document.activeElement.textContent") == "Exportar"
    lab.page.keyboard.press("Tab")
    assert lab.page.evaluate("document.activeElement.textContent") == "banco"
    assert lab.page.evaluate("document.getElementById('table-mha-out').contains(document.activeElement)")
    for key, word in (("ArrowDown", "del"), ("End", "parque"), ("ArrowDown", "parque"),
                      ("Home", "El"), ("ArrowUp", "El"), ("ArrowDown", "banco"), ("ArrowDown", "del")):
        lab.page.keyboard.press(key)
        assert lab.page.evaluate("document.activeElement.textContent") == word, key
    assert lab.state()["query"] == 1  # moving focus changes nothing
    lab.page.keyboard.press("Enter")
    assert lab.settle()["query"] == 2
    assert lab.selected_row("Salida tras W_O [4 × 6]") == "del"
    assert lab.page.evaluate("document.activeElement.textContent") == "del"
    assert text(stops.first) == "del"
    lab.page.keyboard.press("Tab")
    assert lab.page.evaluate("!document.getElementById('table-mha-out').contains(document.activeElement)")

def test_nothing_focused_hides_under_the_sticky_bar(lab):
    for page_name in ("", "bloque.html"):
        lab.page.set_viewport_size({"width": 1280, "height": 720})
        lab.open(lab.base_url + page_name)
        lab.page.locator("body").press("Home")
        hidden = lab.page.evaluate("""async () => {
            const bar = document.getElementById('lab-bar');
            const bad = [];
            const seen = new Set();
            const focusables = [...document.querySelectorAll(
              'a[href], button, select, input, textarea, [tabindex="0"]')].filter((e) =>
              !e.disabled && e.offsetParent !== null && !e.closest('[inert], dialog, #lab-bar'));
            for (const node of focusables) {
              node.focus();
              await new Promise((r) => requestAnimationFrame(() => r()));
              const box = node.getBoundingClientRect();
              const barBox = bar.getBoundingClientRect();
              const stuck = getComputedStyle(bar).position === 'sticky' && barBox.top <= 0;
              const covered = stuck && box.top < barBox.bottom - 1;
              if (covered || box.bottom > innerHeight + 1) bad.push(node.outerHTML.slice(0, 80));
            }
            return bad;
        }""")
        assert hidden == [], page_name


def test_sliders_take_page_keys_and_ends(lab):
    lab.open(lab.base_url, "?panel=rope")
    slider = lab.page.get_by_label("Frecuencia θ")
    slider.focus()
    for key, theta in (("ArrowRight", 0.55), ("PageUp", 1.05), ("PageDown", 0.55),
                       ("End", 3.14), ("Home", 0.0)):
        slider.press(key)
        lab.settle()
        assert lab.state()["theta"] == pytest.approx(theta), key


def test_each_change_is_announced(lab):
    lab.open(lab.base_url)
    lab.choose("Máscara", "bidireccional")
    assert text(lab.page.locator("#announce")) == (
        "Peso de «banco» → «parque»: 0,58; puntuación 1,41 (pista de lugar, máscara bidireccional).")
    lab.set(panel="rope")
    assert "Panel 5 · RoPE con una sola frecuencia." in text(lab.page.locator("#announce"))


def test_motion_respects_reduced_motion(lab):
    lab.page.emulate_media(reduced_motion="reduce")
    lab.open(lab.base_url)
    cell = lab.page.locator("#mascara td").first
    assert cell.evaluate("(e) => getComputedStyle(e).transitionDuration") == "0s"
    assert lab.page.locator(".spinner").evaluate("(e) => getComputedStyle(e).animationName") == "none"


def test_at_200_percent_zoom_nothing_is_lost(lab):
    lab.page.set_viewport_size({"width": 683, "height": 384})  # 1366 × 768 at 200 %
    for page_name in ("", "bloque.html"):
        lab.open(lab.base_url + page_name)
        assert lab.page.evaluate("document.documentElement.scrollWidth") <= 683


# ------------------------------------------------------------ axe-core

@pytest.mark.parametrize("page_name, panels", [("", ATTENTION_PANELS), ("bloque.html", BLOCK_PANELS)])
def test_axe_finds_nothing_serious(lab, page_name, panels):
    lab.open(lab.base_url + page_name)
    assert serious(lab.page) == []
    for panel in panels:
        lab.set(panel=panel)
    if page_name == "":
        lab.set(head="all", mask="bidirectional")
    assert serious(lab.page) == []
    lab.page.emulate_media(color_scheme="dark")
    assert serious(lab.page) == []
    lab.open(lab.base_url + page_name, "?embed=1&panel=%s" % panels[0])
    assert serious(lab.page) == []
