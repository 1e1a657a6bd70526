"""Books: every family is the scipy distribution it says; bad books get a one-line fix."""

import math

import numpy as np
import pytest
from scipy import stats

from mc_tco.book import load_book, loads_book
from mc_tco.engine import plan_run
from mc_tco.errors import BookError
from tests.paths import ARTICLE_BOOK, DEFAULT_BOOK


def one_input(body: str, name: str = "x") -> str:
    return f'[book]\nname = "t"\n\n[inputs.{name}]\n{body}\n'


@pytest.mark.parametrize(
    ("body", "reference"),
    [
        ('dist = "uniform"\nlow = 2\nhigh = 5', stats.uniform(2, 3)),
        ('dist = "loguniform"\nlow = 1\nhigh = 100', stats.loguniform(1, 100)),
        ('dist = "triangular"\nmin = 0\nmode = 1\nmax = 4', stats.triang(0.25, 0, 4)),
        ('dist = "pert"\nmin = 0\nmode = 1\nmax = 4', stats.beta(2, 4, loc=0, scale=4)),
        ('dist = "pert"\nmin = 0\nmode = 1\nmax = 4\nshape = 6', stats.beta(2.5, 5.5, 0, 4)),
        ('dist = "normal"\nmean = 3\nsd = 2', stats.norm(3, 2)),
        ('dist = "truncnormal"\nmean = 0\nsd = 1\nlow = -1\nhigh = 2', stats.truncnorm(-1, 2)),
        ('dist = "lognormal"\nmedian = 2\nsigma = 0.5', stats.lognorm(0.5, scale=2)),
        ('dist = "beta"\na = 2\nb = 3\nlow = 1\nhigh = 3', stats.beta(2, 3, 1, 2)),
    ],
)
def test_families_are_their_scipy_distribution(body, reference):
    inp = loads_book(one_input(body)).inputs["x"]
    q = np.array([0.01, 0.05, 0.3, 0.5, 0.95, 0.999])
    np.testing.assert_allclose(inp.quantiles(q), reference.ppf(q), rtol=1e-12)


def test_lognormal_from_a_central_interval():
    inp = loads_book(one_input('dist = "lognormal"\nlow = 0.67\nhigh = 1.5\nci = 0.9')).inputs["x"]
    np.testing.assert_allclose(inp.quantiles([0.05, 0.95]), [0.67, 1.5], rtol=1e-12)
    assert inp.quantiles([0.5])[0] == pytest.approx(math.sqrt(0.67 * 1.5))


def test_discrete_and_constant():
    book = loads_book(
        '[inputs.d]\ndist = "discrete"\nvalues = [3, 1, 2]\nweights = [0.5, 0.25, 0.25]\n'
        '[inputs.c]\ndist = "constant"\nvalue = 7\n'
    )
    d = book.inputs["d"]
    np.testing.assert_array_equal(d.ppf(np.array([0.1, 0.3, 0.6, 0.99])), [1, 2, 3, 3])
    assert book.inputs["c"].is_constant and book.inputs["c"].value == 7
    assert [i.name for i in book.uncertain] == ["d"]


@pytest.mark.parametrize("path", [DEFAULT_BOOK, ARTICLE_BOOK])
def test_shipped_books_load_and_fit_the_model(path):
    book = load_book(path)
    plan_run(book, samples=16, resamples=0)
    from mc_tco.models.tco import INPUTS

    assert set(book.inputs) == set(INPUTS)  # every quantity of MODEL.md, constants included
    for inp in book.inputs.values():
        assert inp.unit and inp.source, inp.name


def test_article_book_is_the_article_point_plus_its_ranges(article_book):
    uncertain = {i.name for i in article_book.uncertain}
    assert uncertain == {
        "node_price", "throughput_multiple", "kv_kb_per_token", "kv_ttl_days",
        "ssd_price_per_tb", "staff_fte", "staff_cost_per_fte", "regulatory_premium",
    }
    assert article_book.inputs["utilization"].value == 1


BAD = [
    # (book text, message fragment, line)
    ("[inputs.x\ndist = 1", "TOML syntax error", 1),
    (one_input('dist = "cauchy"\nlow = 1'), "unknown family 'cauchy'", 5),
    (one_input('dist = "unifrom"\nlow = 1\nhigh = 2'), "did you mean 'uniform'", 5),
    (one_input('dist = "uniform"\nlow = 1'), "missing field 'high'", 4),
    (one_input('dist = "uniform"\nlow = 1\nhigh = 2\nmode = 3'), "unknown field 'mode'", 8),
    (one_input('dist = "uniform"\nlow = "400k"\nhigh = 2'), "low must be a number", 6),
    (one_input('dist = "uniform"\nlow = "400000"\nhigh = 2'), "write low = 400000", 6),
    (one_input('dist = "uniform"\nlow = nan\nhigh = 2'), "finite number", 6),
    (one_input('dist = "uniform"\nlow = 3\nhigh = 2'), "low (3) must be below high (2)", 6),
    (one_input('dist = "pert"\nmin = 0\nmode = 5\nmax = 4'), "mode (5) must lie in [min, max]", 7),
    (one_input('dist = "normal"\nmean = 0\nsd = -1'), "sd (-1) must be positive", 7),
    (one_input('dist = "discrete"\nvalues = [1, 2]\nweights = [0.5, 0.6]'), "sum to 1.1", 7),
    (one_input('dist = "discrete"\nvalues = [1, 2]\nweights = [1.5, -0.5]'), "not be negative", 7),
    (one_input('dist = "lognormal"\nmedian = 1'), "missing field 'sigma'", 4),
    (one_input('dist = "lognormal"\nmedian = 1\nsigma = 1\nlow = 1'), "either (median, sigma)", 4),
    ('[book]\nname = "t"\n', "has no inputs", None),
    (one_input('dist = "uniform"\nlow = 1\nhigh = 2', name='"a b"'), "plain name", 4),
    ('[grid.demand]\nstart = 10\nstop = 1\nnum = 3\n[inputs.x]\ndist = "constant"\nvalue = 1',
     "start (10) must be below stop (1)", 2),
    ('[book]\nmodel = "no colon"\n[inputs.x]\ndist = "constant"\nvalue = 1',
     "not of the form 'module:function'", 2),
    ('[analysis]\nbogus = 1\n[inputs.x]\ndist = "constant"\nvalue = 1', "unknown field 'bogus'", 2),
]


@pytest.mark.parametrize(("text", "fragment", "line"), BAD)
def test_bad_books_say_where_and_how_to_fix(text, fragment, line):
    with pytest.raises(BookError) as info:
        loads_book(text, "bad.toml")
    msg = str(info.value)
    assert msg.startswith("bad.toml"), msg
    assert fragment in msg, msg
    assert "\n" not in msg
    assert info.value.line == line, msg


def _default_text():
    return DEFAULT_BOOK.read_text()


def test_missing_model_input_is_named():
    text = _default_text().replace("[inputs.pue]", "[inputs.pue_removed]")
    with pytest.raises(BookError, match="the model needs input 'pue'"):
        plan_run(loads_book(text, "b.toml"), samples=16)


def test_unknown_model_input_is_named():
    text = _default_text() + '\n[inputs.gpu_count]\ndist = "constant"\nvalue = 3\n'
    with pytest.raises(BookError, match=r"does not use an input 'gpu_count'") as info:
        plan_run(loads_book(text, "b.toml"), samples=16)
    assert info.value.line is not None


@pytest.mark.parametrize(
    ("replace", "fragment"),
    [
        ('low = 400000\nhigh = 550000', "node_price must be > 0"),
        ('min = 0.6\nmode = 0.75\nmax = 0.9', "utilization must be in (0, 1]"),
    ],
)
def test_values_outside_the_model_range(replace, fragment):
    text = _default_text()
    if "400000" in replace:
        text = text.replace(replace, "low = -5\nhigh = 550000")
    else:
        text = text.replace(replace, "min = 0.5\nmode = 0.7\nmax = 1.3")
    with pytest.raises(BookError, match=fragment.replace("(", r"\(").replace("]", r"\]")):
        plan_run(loads_book(text, "b.toml"), samples=16)


def test_unbounded_family_for_a_bounded_input():
    text = _default_text().replace(
        'dist = "pert"\nmin = 0.6\nmode = 0.75\nmax = 0.9', 'dist = "normal"\nmean = 0.7\nsd = 0.1'
    )
    with pytest.raises(BookError, match="use truncnormal"):
        plan_run(loads_book(text, "b.toml"), samples=16)


def test_model_that_does_not_import(tmp_path):
    text = (
        '[book]\nmodel = "no_such_module_xyz:model"\n'
        '[inputs.x]\ndist = "uniform"\nlow = 0\nhigh = 1'
    )
    with pytest.raises(BookError, match="cannot import module 'no_such_module_xyz'"):
        plan_run(loads_book(text, "b.toml"), samples=16)


def test_missing_file_says_so(tmp_path):
    with pytest.raises(BookError, match="no such file"):
        load_book(tmp_path / "nope.toml")


def test_grids_compare_by_value():
    """Grid holds an ndarray: == must say equal or not, never raise (issue 10)."""
    import numpy as np

    from mc_tco.book import Grid

    a = Grid("demand", np.array([1.0, 2.0]), "tokens/month")
    b = Grid("demand", np.array([1.0, 2.0]), "tokens/month")
    assert a == b and hash(a) == hash(b)
    assert a != Grid("demand", np.array([1.0, 3.0]), "tokens/month")
    assert a != Grid("demand", np.array([1.0, 2.0, 3.0]), "tokens/month")
    assert a.with_points([1.5]) == a.with_points([1.5])
    assert a != "demand"
