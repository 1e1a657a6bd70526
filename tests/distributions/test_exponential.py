"""The exponential family (issue 23: months until an event; issue 25: every common family).

Its ppf is scipy's ``expon`` (and the closed form ``loc - scale log(1 - u)``); a book writes
``scale`` (the mean above ``loc``) and optional ``loc``; both follow a unit conversion.
"""

import math

import numpy as np
import pytest
from scipy import stats
from scipy.stats import qmc

from mc_tco.book import loads_book
from mc_tco.distributions.families import U_MIN
from mc_tco.errors import BookError


def _book(body: str, unit: str = "") -> str:
    extra = f'unit = "{unit}"\n' if unit else ""
    return f'[book]\nname = "t"\n\n[inputs.x]\ndist = "exponential"\n{body}\n{extra}'


@pytest.mark.parametrize(("body", "loc", "scale"), [
    ("scale = 36", 0.0, 36.0),
    ("scale = 2.5\nloc = 6", 6.0, 2.5),
    ("scale = 1e-3\nloc = -4", -4.0, 1e-3),
])
def test_the_ppf_is_scipys_and_the_closed_form(body, loc, scale):
    inp = loads_book(_book(body)).inputs["x"]
    u = qmc.Sobol(1, seed=3).random(1024).ravel().clip(U_MIN, 1 - U_MIN)
    got = inp.ppf(u)
    np.testing.assert_allclose(got, stats.expon(loc=loc, scale=scale).ppf(u), rtol=1e-13)
    np.testing.assert_allclose(got, loc - scale * np.log1p(-u), rtol=1e-12, atol=1e-12 * scale)
    assert inp.quantiles([0.5])[0] == pytest.approx(loc + scale * math.log(2), rel=1e-13)
    assert inp.support() == (loc, math.inf)


def test_the_mean_of_a_large_sample_is_loc_plus_scale():
    inp = loads_book(_book("scale = 36\nloc = 3")).inputs["x"]
    u = qmc.Sobol(1, seed=5).random(2**14).ravel().clip(U_MIN, 1 - U_MIN)
    assert inp.ppf(u).mean() == pytest.approx(39.0, rel=2e-3)


def test_a_unit_conversion_scales_scale_and_loc():
    inp = loads_book(_book("scale = 3\nloc = 1", unit="years")).inputs["x"]
    months = inp.in_unit("months", 12.0)
    np.testing.assert_allclose(months.quantiles([0.1, 0.5, 0.9]),
                               stats.expon(loc=12, scale=36).ppf([0.1, 0.5, 0.9]), rtol=1e-13)


@pytest.mark.parametrize(("body", "fragment"), [
    ("scale = 0", "scale (0) must be positive"),
    ("scale = -2", "scale (-2) must be positive"),
    ("loc = 1", "scale"),
])
def test_a_bad_exponential_is_one_line_naming_the_field(body, fragment):
    with pytest.raises(BookError) as info:
        loads_book(_book(body), "bad.toml")
    msg = str(info.value)
    assert msg.startswith("bad.toml") and fragment in msg and "\n" not in msg, msg
