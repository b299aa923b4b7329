"""The block lab's math: closed forms, identities, and the article's PyTorch block."""
import itertools
import json
import math
import re

import numpy as np
import pytest

from lab_core import block as b
from lab_core import block_lab
from lab_core.block_lab import bloque, ffn, layernorm, orden, residual
from lab_core.views import handle

RNG = np.random.default_rng(17)


# ---------------------------------------------------------- parameter counts

@pytest.mark.parametrize("d, d_ff", list(itertools.product([1, 2, 8, 64, 512, 768, 4096, 8192],
                                                          [1, 4, 2048, 3072, 8192])))
def test_parameter_counts_match_the_closed_form(d, d_ff):
    counts = b.block_parameter_counts(d, d_ff)
    assert counts["total"] == 4 * d * d + 2 * d * d_ff + d_ff + d + 4 * d
    assert counts["attention"] + counts["ffn"] + counts["layernorm"] == counts["total"]


@pytest.mark.parametrize("d, heads, d_ff", [(8, 2, 32), (12, 3, 20), (16, 4, 64)])
def test_parameter_counts_match_the_arrays(d, heads, d_ff):
    params = b.init_block(d, heads, d_ff)
    total = sum(v.size for k, v in params.items() if k != "n_head")
    assert total == b.block_parameter_counts(d, d_ff)["total"]


def test_article_parameter_table():
    table = bloque.parameter_table(512, 2048)
    assert table["headers"] == ["Componente", "Parámetros", "Proporción"]
    # 33,2841 %, 66,6509 % and 0,0650 % each round, half up, to 33,3 + 66,7 +
    # 0,1 = 100,1, as in the article's table: nothing is nudged, a note says so.
    assert table["rows"] == [
        ["Atención", "1.048.576", "33,3 %"],
        ["FFN", "2.099.712", "66,7 %"],
        ["LayerNorm", "2.048", "0,1 %"],
        ["Total", "3.150.336", "100,0 %"],
    ]
    assert table["note"] == ("Cada proporción está redondeada por separado: suman 100,1 %, "
                             "no 100,0 %.")


def test_the_published_table_is_what_the_articles_cell_prints():
    # The article's own code, run in CPython on the same counts: its f-strings.
    counts = b.block_parameter_counts(512, 2048)
    total = counts["total"]
    expected = {"headers": ["Component", "Parameters", "Share"], "rows": [
        ["Attention", f"{counts['attention']:,}", f"{counts['attention'] / total:.1%}"],
        ["FFN", f"{counts['ffn']:,}", f"{counts['ffn'] / total:.1%}"],
        ["LayerNorm", f"{counts['layernorm']:,}", f"{counts['layernorm'] / total:.1%}"],
        ["Total", f"{total:,}", "100.0%"]]}
    assert bloque.article_table(512, 2048) == expected
    assert expected["rows"][0] == ["Attention", "1,048,576", "33.3%"]
    assert expected["rows"][2] == ["LayerNorm", "2,048", "0.1%"]


def test_a_tiny_share_never_reads_zero():
    rows = bloque.parameter_table(768, 3072)["rows"]
    assert rows[2] == ["LayerNorm", "3.072", "< 0,1 %"]
    assert [r[2] for r in rows[:2]] == ["33,3 %", "66,7 %"]


# ------------------------------------------------------------- order

def test_attention_is_permutation_equivariant():
    x = RNG.normal(size=(6, 8))
    w_q, w_k, w_v = (RNG.normal(size=(8, 4)) for _ in range(3))
    weights, out = b.self_attention(x, w_q, w_k, w_v)
    for _ in range(20):
        order = RNG.permutation(6)
        p = b.permutation_matrix(order)
        weights_p, out_p = b.self_attention(p @ x, w_q, w_k, w_v)
        np.testing.assert_allclose(weights_p, p @ weights @ p.T, atol=1e-14)
        np.testing.assert_allclose(out_p, p @ out, atol=1e-14)
        # Pair by pair: the weight between two given tokens is unchanged.
        where = list(order)
        assert weights_p[where.index(1), where.index(4)] == pytest.approx(weights[1, 4])


def test_positional_encoding_breaks_the_symmetry():
    view = orden.order_panel(block_lab.SPEC.default_state())
    assert view["pair"]["a"] == view["pair"]["b"]
    assert view["pe_differs"]
    with pytest.raises(ValueError, match="permutación"):
        b.permutation_matrix([0, 0, 1])


# -------------------------------------------------------- positional encoding

def test_sinusoidal_pe_by_hand():
    pe = b.sinusoidal_pe(3, 4)
    expected = [[math.sin(p), math.cos(p), math.sin(p / 100), math.cos(p / 100)] for p in range(3)]
    np.testing.assert_allclose(pe, expected, atol=1e-15)
    with pytest.raises(ValueError, match="par"):
        b.sinusoidal_pe(3, 5)


@pytest.mark.parametrize("positions, d_model", [(20, 8), (50, 16), (128, 64), (1, 2), (128, 128)])
def test_the_heatmap_sends_each_pe_value_in_thousandths(positions, d_model):
    # The view's heatmap is integers (value × scale); read back, each is the
    # article's formula, by hand here, to half a thousandth.
    reply = json.loads(handle(json.dumps({"lab": "block", "from": "set", "current": {},
                                          "state": {"pe_positions": positions, "pe_d": d_model}})))
    heat = reply["view"]["position"]["heatmap"]
    assert (heat["rows"], heat["cols"], heat["scale"]) == (positions, d_model, 1000)
    for p, row in enumerate(heat["values"]):
        assert len(row) == d_model and all(type(v) is int for v in row)
        for j, v in enumerate(row):
            angle = p / 10000 ** (2 * (j // 2) / d_model)
            exact = math.sin(angle) if j % 2 == 0 else math.cos(angle)
            assert abs(v / heat["scale"] - exact) <= 0.5 / heat["scale"] + 1e-12, (p, j)


def test_wavelengths_go_from_two_pi_towards_10000_two_pi():
    lam = b.wavelengths(512)
    assert lam[0] == pytest.approx(2 * math.pi)
    assert np.all(np.diff(lam) > 0)
    assert lam[-1] < 10000 * 2 * math.pi and lam[-1] > 0.96 * 10000 * 2 * math.pi


@pytest.mark.parametrize("d_model", [2, 8, 16, 64, 128])
@pytest.mark.parametrize("k", [0, 1, 3, 17, 64])
def test_pe_shift_is_one_fixed_linear_map(d_model, k):
    assert b.shift_error(128, d_model, k) < 1e-9
    m = b.shift_matrix(k, d_model)
    pe = b.sinusoidal_pe(300, d_model)
    for pos in (0, 5, 99, 150):
        np.testing.assert_allclose(m @ pe[pos], pe[pos + k], atol=1e-9)


def test_sine_alone_cannot_be_shifted_linearly():
    assert b.sine_only_shift_error(50, 16, 3) > 0.1


# ------------------------------------------------------------- residuals

def test_gradient_vanishes_without_residual_and_not_with_it():
    weights = b.toy_layer_weights(64, 8, 0.5, seed=1)
    plain = b.gradient_norms(weights, residual=False)
    with_res = b.gradient_norms(weights, residual=True)
    assert plain[-1] < 1e-15
    assert min(with_res) > 0.5


def test_the_log_scale_caption_says_the_step_between_its_ticks():
    # At 16 layers and more the ticks step by 10², then by 10⁴: the caption
    # used to say «diez veces» at every depth.
    words = {10: "diez", 100: "cien", 1000: "mil"}
    steps = set()
    for depth in range(1, 65):
        panel = residual.residual_panel(dict(block_lab.SPEC.default_state(), depth=depth))
        ticks = [t["value"] for t in panel["chart"]["y"]["ticks"]]
        step = round(10 ** (ticks[1] - ticks[0]))
        assert all(round(10 ** (b_ - a)) == step for a, b_ in zip(ticks, ticks[1:]))
        name = words.get(step, "10" + str(round(math.log10(step))).translate(
            str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")))
        assert panel["scale"] == "Escala logarítmica: cada marca es %s veces la anterior." % name
        steps.add(step)
    assert {10, 100} <= steps and max(steps) >= 10 ** 4


def test_gradient_norms_match_finite_differences():
    weights = b.toy_layer_weights(5, 4, 0.7, seed=2)
    x0 = np.random.RandomState(1).normal(size=4)
    g = np.ones(4) / 2.0

    def forward(x, residual):
        for w in weights:
            x = x + np.tanh(x @ w) if residual else np.tanh(x @ w)
        return x

    for residual in (False, True):
        jac = np.zeros((4, 4))
        for i in range(4):
            e = np.zeros(4)
            e[i] = 1e-6
            jac[i] = (forward(x0 + e, residual) - forward(x0 - e, residual)) / 2e-6
        expected = np.linalg.norm(jac @ g)
        assert b.gradient_norms(weights, residual)[-1] == pytest.approx(expected, rel=1e-6)


# -------------------------------------------------------------- LayerNorm

def test_last_layer_gradients_in_one_pass_equal_each_stack_backward():
    """The panel's table comes from one forward pass over 64 layers; each
    depth's full stack, with its whole backward pass (norm_gradients), must
    give the same last-layer gradient."""
    post, pre = b.last_layer_gradients(64)
    for depth in range(1, 65):
        whole_post, whole_pre = b.norm_gradients(depth)
        assert post[depth - 1] == pytest.approx(whole_post[-1], rel=1e-12)
        assert pre[depth - 1] == pytest.approx(whole_pre[-1], rel=1e-12)


def test_layer_norm_by_hand():
    x = np.array([2.0, 4.0, 6.0, 8.0])
    mean, var = 5.0, 5.0
    out = b.layer_norm(x, np.full(4, 2.0), np.full(4, 0.5))
    expected = [(v - mean) / math.sqrt(var + 1e-5) * 2.0 + 0.5 for v in x]
    np.testing.assert_allclose(out, expected, atol=1e-15)
    # Constant input: ε keeps it finite, the output is β.
    np.testing.assert_array_equal(b.layer_norm(np.ones(4), np.ones(4), np.full(4, 0.3)),
                                  np.full(4, 0.3))


def test_a_variance_beside_epsilon_shows_its_size():
    # (1; 1; 1; 1,01): σ² = 1,875·10⁻⁵, the same order as ε = 10⁻⁵. Read as
    # 0,000 it made the normalised (−0,466; …; 1,399) look impossible.
    state = dict(block_lab.SPEC.default_state(), ln_x=[1.0, 1.0, 1.0, 1.01])
    view = layernorm.layernorm_panel(state)
    assert view["var"] == "1,9·10⁻⁵"
    assert view["normalized"] == "(−0,466; −0,466; −0,466; 1,399)"
    np.testing.assert_allclose(0.0075 / math.sqrt(1.875e-5 + 1e-5), 1.399, atol=5e-4)
    assert view["x"] == "(1,00; 1,00; 1,00; 1,01)" and view["mean"] == "1,0025"
    # x and μ show the decimals that make x − μ visible.
    small = layernorm.layernorm_panel(dict(state, ln_x=[1.0, 1.0, 1.0, 1.001]))
    assert (small["x"], small["mean"], small["var"]) == ("(1,00; 1,00; 1,00; 1,001)", "1,00025", "1,9·10⁻⁷")
    assert layernorm.layernorm_panel(dict(state, ln_x=[3.0] * 4))["var"] == "0,000"  # exactly 0
    assert layernorm.layernorm_panel(dict(state, ln_x=[2.0, 4.0, 6.0, 8.0]))["var"] == "5,000"


def test_norm_growth_under_three_settings():
    rows = np.array(b.norm_growth(24))
    plain, post, pre = rows.T
    assert len(rows) == 25 and plain[0] == post[0] == pre[0]  # the input, then 24 layers
    assert plain[-1] > 100 * plain[1]
    np.testing.assert_allclose(post[1:], math.sqrt(16), rtol=1e-5)  # LN output has norm √d
    assert pre[-1] < plain[-1] / 50  # it grows, but additively, not multiplicatively


# --------------------------------------------------------------------- FFN

def test_gelu_and_relu_by_hand():
    x = np.array([-1.0, 0.0, 1.0])
    phi = [0.5 * (1 + math.erf(v / math.sqrt(2))) for v in x]
    np.testing.assert_allclose(b.gelu(x), x * np.array(phi), atol=1e-16)
    np.testing.assert_array_equal(b.relu(x), [0, 0, 1])


def test_ffn_without_activation_collapses_to_one_affine_map():
    for d, d_ff in [(4, 16), (8, 32), (16, 64)]:
        w1, b1 = RNG.normal(size=(d, d_ff)), RNG.normal(size=d_ff)
        w2, b2 = RNG.normal(size=(d_ff, d)), RNG.normal(size=d)
        a, bias = b.collapse_without_activation(w1, b1, w2, b2)
        x = RNG.normal(size=(10, d))
        linear = b.ffn(x, w1, b1, w2, b2, act=lambda v: v)
        assert np.max(np.abs(linear - (x @ a + bias))) < 1e-9
        # With σ it no longer does.
        assert np.max(np.abs(b.ffn(x, w1, b1, w2, b2) - (x @ a + bias))) > 1e-3


def test_the_ffn_checks_name_the_network_they_use():
    # The checks run on a fixed small FFN whatever the sizes chosen in panel 6:
    # the page says which, and the collapsed map's shape is its d_model.
    for sizes in ({}, {"d_model": 6, "heads": 3, "d_ff": 8192}):
        view = ffn.ffn_panel(dict(block_lab.SPEC.default_state(), **sizes))
        x, w1, b1, w2, b2 = b.toy_ffn()
        assert view["demo"] == "d_model = %d → d_ff = %d → d_model = %d" % (x.shape[1], w1.shape[1], w2.shape[1])
        assert view["demo"] == "d_model = 8 → d_ff = 32 → d_model = 8"
        assert view["collapse"]["shape_a"] == "8 × 8"


def test_ffn_is_per_position():
    view = ffn.ffn_panel(block_lab.SPEC.default_state())
    assert view["locality"]["ffn5"] == "< 10⁻¹²"
    assert "no se entera" in view["locality"]["verdict"]
    for key in ("ffn3", "attn5"):
        assert not view["locality"][key].startswith("<")


# --------------------------------------------- the block against the article's PyTorch code

import torch  # noqa: E402  (a test dependency: make test installs torch==2.13.0)
nn = torch.nn
F = torch.nn.functional


class MultiHeadAttention(nn.Module):  # the article's code, verbatim
    def __init__(self, d_model, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.d_k = d_model // num_heads
        self.W_Q = nn.Linear(d_model, d_model, bias=False)
        self.W_K = nn.Linear(d_model, d_model, bias=False)
        self.W_V = nn.Linear(d_model, d_model, bias=False)
        self.W_O = nn.Linear(d_model, d_model, bias=False)

    def forward(self, x, mask=None):
        B, T, C = x.shape
        Q = self.W_Q(x).view(B, T, self.num_heads, self.d_k).transpose(1, 2)
        K = self.W_K(x).view(B, T, self.num_heads, self.d_k).transpose(1, 2)
        V = self.W_V(x).view(B, T, self.num_heads, self.d_k).transpose(1, 2)
        scores = (Q @ K.transpose(-2, -1)) / (self.d_k ** 0.5)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, float('-inf'))
        attn = F.softmax(scores, dim=-1)
        out = (attn @ V).transpose(1, 2).contiguous().view(B, T, C)
        return self.W_O(out)


class FeedForward(nn.Module):
    def __init__(self, d_model, d_ff):
        super().__init__()
        self.W1 = nn.Linear(d_model, d_ff)
        self.W2 = nn.Linear(d_ff, d_model)

    def forward(self, x):
        return self.W2(F.gelu(self.W1(x)))


class TransformerBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = MultiHeadAttention(d_model, num_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.ffn = FeedForward(d_model, d_ff)

    def forward(self, x, mask=None):
        x = x + self.attn(self.ln1(x), mask)
        x = x + self.ffn(self.ln2(x))
        return x


def torch_block_from(params, d_model, n_head, d_ff, dtype):
    """The article's block holding the NumPy weights (nn.Linear stores Wᵀ)."""
    block = TransformerBlock(d_model, n_head, d_ff).to(dtype)
    t = lambda a: torch.tensor(a, dtype=dtype)  # noqa: E731
    with torch.no_grad():
        block.ln1.weight.copy_(t(params["ln1_g"]))
        block.ln1.bias.copy_(t(params["ln1_b"]))
        block.ln2.weight.copy_(t(params["ln2_g"]))
        block.ln2.bias.copy_(t(params["ln2_b"]))
        for name in ("W_Q", "W_K", "W_V", "W_O"):
            getattr(block.attn, name).weight.copy_(t(params[name.lower()].T))
        block.ffn.W1.weight.copy_(t(params["w1"].T))
        block.ffn.W1.bias.copy_(t(params["b1"]))
        block.ffn.W2.weight.copy_(t(params["w2"].T))
        block.ffn.W2.bias.copy_(t(params["b2"]))
    return block


@pytest.mark.parametrize("d_model, n_head, d_ff", [(16, 4, 64), (24, 3, 96), (64, 8, 256)])
@pytest.mark.parametrize("causal", [False, True])
def test_numpy_block_equals_the_articles_pytorch_block(d_model, n_head, d_ff, causal):
    params = b.init_block(d_model, n_head, d_ff, seed=d_model)
    x = np.random.RandomState(3).normal(size=(2, 10, d_model))
    mask = np.tril(np.ones((10, 10), dtype=bool)) if causal else None
    ours = np.stack([b.transformer_block(seq, params, mask) for seq in x])
    block = torch_block_from(params, d_model, n_head, d_ff, torch.float32)
    torch_mask = None if mask is None else torch.tensor(mask.astype(np.float32))
    with torch.no_grad():
        theirs = block(torch.tensor(x, dtype=torch.float32), torch_mask).numpy()
    assert ours.shape == theirs.shape == (2, 10, d_model)
    np.testing.assert_allclose(ours, theirs, atol=1e-5, rtol=0)
    # Parameter count: the same as the closed form and as PyTorch's own count.
    assert sum(p.numel() for p in block.parameters()) == \
        b.block_parameter_counts(d_model, d_ff)["total"]


def test_numpy_block_equals_pytorch_at_the_articles_size_in_float64():
    params = b.init_block(512, 8, 2048, seed=1)
    x = np.random.RandomState(4).normal(size=(2, 10, 512))
    ours = np.stack([b.transformer_block(seq, params) for seq in x])
    block = torch_block_from(params, 512, 8, 2048, torch.float64)
    with torch.no_grad():
        theirs = block(torch.tensor(x, dtype=torch.float64)).numpy()
    np.testing.assert_allclose(ours, theirs, atol=1e-10, rtol=0)
    counts = {
        "attention": sum(p.numel() for p in block.attn.parameters()),
        "ffn": sum(p.numel() for p in block.ffn.parameters()),
        "layernorm": sum(p.numel() for p in block.ln1.parameters())
        + sum(p.numel() for p in block.ln2.parameters()),
    }
    assert counts == {k: v for k, v in b.block_parameter_counts(512, 2048).items() if k != "total"}


def test_gelu_and_layer_norm_match_pytorch():
    x = np.linspace(-6, 6, 241)
    np.testing.assert_allclose(b.gelu(x), F.gelu(torch.tensor(x)).numpy(), atol=1e-15)
    v = RNG.normal(size=(5, 12))
    g, beta = RNG.normal(size=12), RNG.normal(size=12)
    theirs = F.layer_norm(torch.tensor(v), (12,), torch.tensor(g), torch.tensor(beta), eps=1e-5)
    np.testing.assert_allclose(b.layer_norm(v, g, beta), theirs.numpy(), atol=1e-12)


# ------------------------------------------------------------- state and view

def ask(partial, current=None):
    return json.loads(handle(json.dumps({"lab": "block", "from": "set",
                                         "current": current or {}, "state": partial})))


@pytest.mark.parametrize("partial, key, pattern", [
    ({"d_model": 100}, "d_model", "no es divisible"),
    ({"heads": 7}, "heads", "no es divisible"),
    ({"d_model": 0}, "d_model", "fuera del rango"),
    ({"d_ff": -4}, "d_ff", "fuera del rango"),
    ({"d_model": 1.5}, "d_model", "no es un número entero"),
    ({"d_ff": 9000}, "d_ff", "^d_ff: 9.000 está fuera del rango 1 a 8.192. Se mantiene: 2.048$"),
    ({"heads": "ocho"}, "heads", "no es un número entero"),
    ({"pe_d": 15}, "pe_d", "debe ser par"),
    ({"pe_positions": 500}, "pe_positions", "fuera del rango"),
    ({"depth": 0}, "depth", "fuera del rango"),
    ({"order": [0, 0, 1, 2, 3]}, "order", "sin repetir"),
    ({"ln_x": [1, 2, 3]}, "ln_x", "4 coordenadas"),
    ({"gamma": "inf"}, "gamma", r"«inf» no es un número\. "),
])
def test_bad_sizes_are_rejected_with_their_key(partial, key, pattern):
    reply = ask(partial)
    assert reply["ok"] is False and reply["key"] == key
    assert re.search(pattern, reply["error"]), reply["error"]


@pytest.mark.parametrize("text, size", [("1.024", 1024), ("8.192", 8192), ("+2.048", 2048), (" 1.536 ", 1536),
                                        ("2 048", 2048), ("1\u00a0024", 1024), ("4\u202f096", 4096)])
def test_a_size_written_with_its_thousands_grouped_is_read_whole(text, size):
    # The page writes 1.024 and 8.192 in its tables and messages: a reader
    # who types a size back the same way means that size.
    reply = ask({"d_model": text, "d_ff": text})
    assert reply["ok"], reply["error"]
    assert reply["view"]["state"]["d_model"] == reply["view"]["state"]["d_ff"] == size


@pytest.mark.parametrize("text", ["1.02", "1.0240", "0.512", "1,024", "1.024.", ".512", "1..024", "1.024,5",
                                  "2 04", "1 024.000", "1  024", "0 512"])
def test_a_size_with_a_point_that_groups_no_thousands_is_refused(text):
    reply = ask({"d_ff": text})
    assert reply["ok"] is False and reply["key"] == "d_ff"
    assert reply["error"].startswith("d_ff: «%s» no es un número entero" % text.strip()), reply["error"]


@pytest.mark.parametrize("d_model, heads", [(512, 8), (1000, 8), (12, 12), (1, 1), (8192, 8192),
                                             (8192, 1), (97, 1), (768, 12)])
def test_the_arrows_of_d_model_and_heads_go_to_the_nearest_size_python_accepts(d_model, heads):
    # A step of 1 from 512 with 8 heads gave 513: refused, and the next ↑
    # started from 512 again, so ↑ never got past it.
    controls = ask({"d_model": d_model, "heads": heads})["view"]["fields"]
    accepted = lambda partial: ask({"d_model": d_model, "heads": heads, **partial})["ok"]
    for key, value in (("d_model", d_model), ("heads", heads)):
        down, up = controls[key]["down"], controls[key]["up"]
        # Second computation: walk one by one to the first size Python accepts.
        walk = lambda sign: next((n for n in range(value + sign, 0 if sign < 0 else 8193, sign)
                                  if accepted({key: n})), None)
        assert (down, up) == (walk(-1), walk(1)), key


def test_a_size_refused_says_its_numbers_as_the_page_writes_them():
    # It said «entre 1024 cabezas» beside tables that write 1.024.
    reply = ask({"d_model": 8000, "heads": 1024})
    assert reply["ok"] is False and reply["key"] == "heads"
    assert reply["error"].startswith("d_model = 8.000 no es divisible entre 1.024 cabezas:"), reply["error"]


@pytest.mark.parametrize("text, value", [("1,024", 1.024), ("1.5", 1.5), ("0.125", 0.125), ("-2,500", -2.5),
                                          ("1e1", 10.0), ("12.5", 12.5)])
def test_a_decimal_field_reads_the_comma_and_an_unambiguous_point(text, value):
    reply = ask({"ln_x": [text, "0", "0", "0"]})
    assert reply["ok"], reply["error"]
    assert reply["view"]["state"]["ln_x"][0] == value


@pytest.mark.parametrize("text", ["1.024", "-2.500", "+1.000", "10.000"])
def test_a_decimal_field_refuses_a_point_that_may_group_thousands(text):
    # The integer fields read «1.024» as 1024, as the page writes it; a
    # decimal field read it as 1,024, silently, and «1.000» as 1.
    reply = ask({"ln_x": [text, "0", "0", "0"]})
    assert reply["ok"] is False and reply["key"] == "ln_x"
    assert reply["error"].startswith("Vector x: «%s» se lee de dos maneras: escribe «%s» para los "
                                     "decimales o «%s» sin punto" % (text, text.replace(".", ","),
                                                                     text.replace(".", ""))), reply["error"]


def test_the_printed_state_line_names_every_value_a_panel_reads():
    # On paper it left out the LayerNorm vector, γ, β, the positions and k.
    line = ask({"d_model": 8192, "heads": 8, "d_ff": 2048, "ln_x": ["1,5", "0", "0", "0"],
                "gamma": 0.5})["view"]["state_line"]
    assert line == ("Orden: El hombre mordió al perro · Posiciones: 50 · d_model de la codificación: 16 · "
                    "Desplazamiento k: 3 · Profundidad: 12 · Vector x: (1,5; 0; 0; 0) · Escala γ: 0,5 · "
                    "Desplazamiento β: 0 · d_model: 8.192 · Cabezas: 8 · d_ff: 2.048")
    for key, label in block_lab.LABELS.items():  # the page's place and its teacher view are not values
        assert (label + ": " in line) == (key not in ("panel", "respuestas")), key


def test_any_size_up_to_8192_is_instant_and_arrays_are_bounded(monkeypatch):
    def refuse(*args):
        raise AssertionError("no arrays for large sizes")
    monkeypatch.setattr(b, "shape_check", refuse)
    reply = ask({"d_model": 8192, "heads": 8, "d_ff": 8192})
    assert reply["ok"] and not reply["view"]["block"]["real"]
    assert reply["view"]["block"]["params"]["rows"][3][1] == "402.702.336"


def test_default_block_view_runs_the_real_block():
    view = ask({})["view"]["block"]
    assert view["real"] and view["shape_in"] == view["shape_out"] == "(2, 10, 512)"


def test_block_views_are_strict_json():
    for partial in ({}, {"order": [4, 3, 2, 1, 0], "pe_d": 128, "pe_positions": 128},
                    {"depth": 64, "ln_x": [1, 1, 1, 1]}, {"d_model": 12, "heads": 3, "d_ff": 7}):
        text = handle(json.dumps({"lab": "block", "from": "set", "current": {}, "state": partial}))
        assert "NaN" not in text and "Infinity" not in text
        assert json.loads(text)["ok"]


def test_url_with_a_clashing_size_falls_back_to_defaults():
    reply = json.loads(handle(json.dumps({"lab": "block", "from": "url",
                                          "state": {"d_model": "100"}})))
    assert reply["view"]["state"] == block_lab.SPEC.default_state()
    assert any("no es divisible" in n for n in reply["view"]["notices"])


@pytest.mark.parametrize("partial, key, text, up, down", [
    ({}, "gamma", "1", 1.1, 0.9),
    ({"gamma": 2.236070213566649}, "gamma", "2,23607", 2.33607, 2.13607),
    ({"gamma": -100}, "gamma", "−100", -99.9, None),
    ({"beta": 100}, "beta", "100", None, 99.9),
    ({}, "pe_d", "16", 18, 14),
    ({"pe_d": 2}, "pe_d", "2", 4, None),
])
def test_each_number_field_gets_its_text_and_its_steps_from_python(partial, key, text, up, down):
    # The page writes no number: a field shows Python's text, and ↑ and ↓
    # send the values Python gives (null at a bound).
    field = ask(partial)["view"]["fields"][key]
    assert (field["text"], field["up"], field["down"]) == (text, up, down)


def test_a_vector_field_steps_one_coordinate_at_a_time():
    field = ask({"ln_x": [2, 4, 6, 100]})["view"]["fields"]["ln_x"]
    assert field["text"] == ["2", "4", "6", "100"] and field["raw"] == ["2", "4", "6", "100"]
    assert field["up"][0] == [2.5, 4, 6, 100] and field["up"][3] is None
    assert field["down"][1] == [2, 3.5, 6, 100]
