"""Every common family, entered as people think (issue 25 item 7).

gamma, weibull, loglogistic, gumbel, gumbel_min and student_t against scipy's frozen
distributions; the interval entry (low, high, ci) against its own quantiles; the lognormal
by mean and sd against its closed-form moments and a large sample; the one-sided
truncnormal against scipy's ``truncnorm`` with an infinite bound.
"""

import math

import numpy as np
import pytest
from scipy import stats
from scipy.stats import qmc

from mc_tco.book import loads_book
from mc_tco.distributions.families import FAMILIES, U_MIN
from mc_tco.errors import BookError

U = np.concatenate([qmc.Sobol(1, seed=7).random(1024).ravel().clip(U_MIN, 1 - U_MIN),
                    [U_MIN, 1e-9, 1e-6, 0.5, 1 - 1e-6, 1 - 1e-9, 1 - U_MIN]])


def _input(dist: str, body: str, unit: str = ""):
    extra = f'unit = "{unit}"\n' if unit else ""
    text = f'[book]\nname = "t"\n\n[inputs.x]\ndist = "{dist}"\n{body}\n{extra}'
    return loads_book(text).inputs["x"]


@pytest.mark.parametrize(("dist", "body", "reference"), [
    ("gamma", "shape = 2\nscale = 18", stats.gamma(2, scale=18)),
    ("gamma", "shape = 0.3\nscale = 5\nloc = -1", stats.gamma(0.3, loc=-1, scale=5)),
    ("weibull", "shape = 1.5\nscale = 40", stats.weibull_min(1.5, scale=40)),
    ("weibull", "shape = 0.7\nscale = 2\nloc = 3", stats.weibull_min(0.7, loc=3, scale=2)),
    ("loglogistic", "shape = 3\nscale = 36", stats.fisk(3, scale=36)),
    ("loglogistic", "shape = 8\nscale = 1\nloc = 2", stats.fisk(8, loc=2, scale=1)),
    ("gumbel", "loc = 100\nscale = 15", stats.gumbel_r(loc=100, scale=15)),
    ("gumbel_min", "loc = 100\nscale = 15", stats.gumbel_l(loc=100, scale=15)),
    ("student_t", "df = 4", stats.t(4)),
    ("student_t", "df = 1.5\nloc = 1\nscale = 0.1", stats.t(1.5, loc=1, scale=0.1)),
    ("truncnormal", "mean = 1\nsd = 0.5\nlow = 0", stats.truncnorm(-2, np.inf, 1, 0.5)),
    ("truncnormal", "mean = 1\nsd = 0.5\nlow = 0\nhigh = inf", stats.truncnorm(-2, np.inf, 1, 0.5)),
    ("truncnormal", "mean = 1\nsd = 0.5\nhigh = 1.2", stats.truncnorm(-np.inf, 0.4, 1, 0.5)),
    ("truncnormal", "mean = 1\nsd = 0.5\nhigh = 1.2\nlow = -inf",
     stats.truncnorm(-np.inf, 0.4, 1, 0.5)),
])
def test_the_ppf_is_scipys(dist, body, reference):
    inp = _input(dist, body)
    np.testing.assert_allclose(inp.ppf(U), reference.ppf(U), rtol=1e-12)
    lo, hi = reference.support()
    assert inp.support() == (lo, hi)


INTERVALS = [
    ("normal", ""), ("lognormal", ""), ("gamma", ""), ("gamma", "loc = -3"),
    ("weibull", ""), ("weibull", "loc = 2"), ("loglogistic", ""), ("loglogistic", "loc = 1"),
    ("gumbel", ""), ("gumbel_min", ""),
]


@pytest.mark.parametrize(("dist", "extra"), INTERVALS)
@pytest.mark.parametrize(("low", "high", "ci"), [
    (4.4, 85.0, None), (30.0, 31.0, 0.9), (3.0, 3000.0, 0.8), (5.0, 9.0, 0.5), (10, 12, 0.99)])
def test_the_interval_entry_gives_back_low_and_high(dist, extra, low, high, ci):
    body = f"low = {low}\nhigh = {high}\n" + (f"ci = {ci}\n" if ci else "") + extra
    inp = _input(dist, body)
    c = 0.9 if ci is None else ci
    np.testing.assert_allclose(inp.quantiles([(1 - c) / 2, (1 + c) / 2]), [low, high],
                               rtol=1e-10)


@pytest.mark.parametrize(("mean", "sd"), [(1.0, 0.26), (36.0, 50.0), (2e5, 1e4), (0.01, 0.03)])
def test_the_lognormal_by_mean_and_sd_has_that_mean_and_sd(mean, sd):
    inp = _input("lognormal", f"mean = {mean}\nsd = {sd}")
    assert inp.dist.mean() == pytest.approx(mean, rel=1e-12)
    assert inp.dist.std() == pytest.approx(sd, rel=1e-12)
    sigma = math.sqrt(math.log(1 + (sd / mean) ** 2))
    ref = stats.lognorm(sigma, scale=mean * math.exp(-sigma**2 / 2))
    np.testing.assert_allclose(inp.ppf(U), ref.ppf(U), rtol=1e-12)


def test_a_large_lognormal_sample_has_the_mean_and_sd():
    inp = _input("lognormal", "mean = 36\nsd = 12")
    u = qmc.Sobol(1, seed=11).random(2**16).ravel().clip(U_MIN, 1 - U_MIN)
    x = inp.ppf(u)
    assert x.mean() == pytest.approx(36, rel=2e-3)
    assert x.std() == pytest.approx(12, rel=1e-2)


@pytest.mark.parametrize(("dist", "body", "fields"), [
    ("gamma", "shape = 2\nscale = 3\nloc = 1", {"shape": 2, "scale": 36, "loc": 12}),
    ("gamma", "low = 2\nhigh = 9", {"low": 24, "high": 108}),
    ("weibull", "shape = 1.5\nscale = 3", {"shape": 1.5, "scale": 36}),
    ("loglogistic", "shape = 3\nscale = 2", {"shape": 3, "scale": 24}),
    ("gumbel", "loc = 2\nscale = 0.5", {"loc": 24, "scale": 6}),
    ("student_t", "df = 3\nloc = 1\nscale = 0.5", {"df": 3, "loc": 12, "scale": 6}),
    ("truncnormal", "mean = 1\nsd = 0.5\nlow = 0", {"mean": 12, "sd": 6, "low": 0}),
    ("lognormal", "mean = 3\nsd = 1", {"mean": 36, "sd": 12}),
    ("normal", "low = 1\nhigh = 2", {"low": 12, "high": 24}),
])
def test_a_unit_conversion_scales_the_fields_in_the_unit(dist, body, fields):
    years = _input(dist, body, unit="years")
    months = years.in_unit("months", 12.0)
    for k, v in fields.items():
        assert months.params[k] == v
    # atol: a ppf near 0 is a difference of two numbers of the input's size
    np.testing.assert_allclose(months.ppf(U), 12 * years.ppf(U), rtol=1e-12,
                               atol=1e-14 * np.abs(months.ppf(U)).max())


@pytest.mark.parametrize(("dist", "body", "field", "fragment"), [
    ("gamma", "shape = 0\nscale = 1", "shape", "shape (0) must be positive"),
    ("gamma", "shape = 2\nscale = -1", "scale", "scale (-1) must be positive"),
    ("gamma", "shape = 2e7\nscale = 1", "shape", "constant in disguise"),
    ("gamma", "shape = 2", "x", "missing field 'scale'"),
    ("gamma", "loc = 2", "x", "takes either (shape, scale) or (low, high)"),
    ("gamma", "low = 1\nhigh = 1.0000001", "high", "shape would be above"),
    ("weibull", "low = 1e-30\nhigh = 1e30\nci = 0.2", "high", "shape would be below"),
    ("weibull", "low = 1\nhigh = 2\nloc = 1", "low", "must be above loc"),
    ("loglogistic", "low = 3\nhigh = 2", "low", "swap them"),
    ("gumbel", "low = 1\nhigh = 2\nci = 1", "ci", "ci (1) must lie strictly between"),
    ("gumbel", "loc = 1\nscale = 0", "scale", "scale (0) must be positive"),
    # a ci so small that low and high are the same quantile (it divided by zero)
    ("normal", "low = 1\nhigh = 2\nci = 1e-300", "ci", "ci (1e-300) is too small"),
    ("gumbel", "low = 1\nhigh = 2\nci = 1e-20", "ci", "ci (1e-20) is too small"),
    ("student_t", "df = 0", "df", "df (0) must be positive"),
    ("student_t", "df = 3\nscale = -1", "scale", "scale (-1) must be positive"),
    ("lognormal", "mean = -1\nsd = 1", "mean", "must be positive"),
    ("lognormal", "mean = 1\nsd = 1\nci = 0.9", "ci", "ci goes with low/high"),
    ("normal", "mean = 1\nsd = 1\nci = 0.9", "ci", "ci goes with low/high"),
    ("truncnormal", "mean = 1\nsd = 1", "low", "give low or high (one-sided)"),
    ("truncnormal", "mean = 1\nsd = 1\nlow = inf", "low", "leave low out"),
    ("truncnormal", "mean = 1\nsd = 1\nhigh = -inf", "high", "leave high out"),
    ("uniform", "low = 0\nhigh = inf", "high", 'use dist = "truncnormal" and leave high out'),
])
def test_a_bad_field_is_one_line_naming_it(dist, body, field, fragment):
    text = f'[book]\nname = "t"\n\n[inputs.x]\ndist = "{dist}"\n{body}\n'
    with pytest.raises(BookError) as info:
        loads_book(text, "bad.toml")
    msg = str(info.value)
    assert msg.startswith("bad.toml") and fragment in msg and "\n" not in msg, msg
    where = "inputs.x" if field == "x" else f"inputs.x.{field}"
    assert f"{where}:" in msg, msg


def _forms(example: str) -> list[str]:
    """The example's first form and each ``or ...`` form in its parentheses."""
    first, _, rest = example.partition("  (")
    return [first] + [seg.strip().removeprefix("or ").strip()
                      for seg in rest.rstrip(")").split(";") if seg.strip().startswith("or ")]


@pytest.mark.parametrize("name", list(FAMILIES))
def test_every_example_loads_and_its_forms_agree(name, tmp_path, monkeypatch):
    """The example a message shows is a book's text; an interval form says the same."""
    if name == "empirical":  # its example names a data file next to the book
        (tmp_path / "prices.csv").write_text("price\n1\n2\n4\n")
        monkeypatch.chdir(tmp_path)
    forms = _forms(FAMILIES[name].example)
    if not FAMILIES[name].alternatives:
        forms = forms[:1]
    inputs = [loads_book(f'[book]\nname = "t"\n\n[inputs]\nx = {{ dist = "{name}", {f} }}\n')
              .inputs["x"] for f in forms]
    if name == "constant":
        return
    q = [0.05, 0.5, 0.95]
    for other in inputs[1:]:
        np.testing.assert_allclose(other.quantiles(q), inputs[0].quantiles(q), rtol=0.02)
