""":class:`mc_tco.distributions.frozen.Frozen` gives scipy.stats' numbers bit for bit, and
is scipy's frozen distribution for everything it does not compute itself."""

import copy
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from mc_tco.distributions.frozen import FAST, Frozen, binom_ppf, frozen, norm_ppf, t_ppf

CASES = [
    ("uniform", (), {"loc": 400000.0, "scale": 150000.0}),
    ("uniform", (), {}),
    ("norm", (), {"loc": 1.0, "scale": 0.1}),
    ("norm", (), {"loc": -3e5, "scale": 2.5e4}),
    ("expon", (), {"loc": 0.0, "scale": 36.0}),
    ("expon", (), {"loc": 2.0, "scale": 1e-3}),
    ("lognorm", (), {"s": 0.25, "scale": 1.0}),
    ("lognorm", (), {"s": 0.1742, "scale": 8.366600265340756e8}),
    ("lognorm", (1.3,), {"scale": 3.5}),
    ("triang", (), {"c": 0.5, "loc": 0.4, "scale": 0.4}),
    ("triang", (), {"c": 0.0, "loc": 1.0, "scale": 2.0}),
    ("triang", (1.0,), {"loc": -1.0, "scale": 3.0}),
    ("loguniform", (1.0, 100.0), {}),
    ("loguniform", (3e-4, 7e9), {}),
    ("beta", (2.0, 5.0), {"loc": 0.0, "scale": 1.0}),
    ("beta", (3.1818181818181817, 1.8181818181818181), {"loc": 0.6, "scale": 0.72}),
    ("beta", (0.5, 0.5), {}),
    ("beta", (1.0, 3.0), {"loc": 2.0, "scale": 5.0}),
    ("t", (4.0,), {"loc": 1.0, "scale": 0.1}),
    ("t", (1.0,), {}),
    ("norm", (1.0, 2.0), {}),                      # loc and scale by position
    ("beta", (2.0, 3.0, 0.5), {"scale": 2.0}),
    ("expon", (3.0,), {}),
    ("loguniform", (1.0, 10.0, -2.0, 3.0), {}),
]


def _qs(rng):
    u = rng.random(1001)
    return [
        u, u[:1], u[:7], u[:64], u[::3],                         # sizes, a strided view
        u[:600].reshape(20, 30), u[:600].reshape(20, 30).T,      # 2-d, F-ordered
        np.float64(0.3), np.array(0.999), 0.5,                   # 0-d and a float
        np.array([2.0**-31, 1 - 2.0**-31, 1e-12, 1 - 1e-12, 0.5]),
        [0.05, 0.5, 0.95],                                       # a list
    ]


#: probabilities :class:`Frozen` leaves to scipy's object: the ends, NaN, outside, float32
ELSEWHERE = [np.array([0.0, 0.2, 1.0]), np.array([np.nan, 0.5]), np.array([-0.5, 1.5]),
             np.array([0.25, 0.75], dtype=np.float32), 0.0, np.array([]), [1.0]]


def _same(got, want):
    assert type(got) is type(want)
    assert np.shape(got) == np.shape(want)
    np.testing.assert_array_equal(got, want)
    assert np.array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize(("name", "args", "kwds"), CASES)
def test_ppf_and_support_are_scipys_bit_for_bit(name, args, kwds):
    mine, theirs = Frozen(name, *args, **kwds), getattr(stats, name)(*args, **kwds)
    assert mine._ok
    for q in _qs(np.random.default_rng(sum(map(ord, name)))):
        with np.errstate(all="ignore"):
            _same(mine.ppf(q), theirs.ppf(q))
    for a, b in zip(mine.support(), theirs.support(), strict=True):
        _same(a, b)
    assert mine._real is None  # (all of it without scipy's object)
    for q in ELSEWHERE:
        with np.errstate(all="ignore"):
            _same(mine.ppf(q), theirs.ppf(q))


@pytest.mark.parametrize(("name", "args", "kwds"), CASES[::3])
def test_everything_else_is_scipys_object(name, args, kwds):
    mine, theirs = Frozen(name, *args, **kwds), getattr(stats, name)(*args, **kwds)
    assert mine.mean() == theirs.mean()
    assert mine.median() == theirs.median()
    x = theirs.ppf([0.1, 0.5, 0.9])
    np.testing.assert_array_equal(mine.pdf(x), theirs.pdf(x))
    np.testing.assert_array_equal(mine.cdf(x), theirs.cdf(x))
    assert type(mine.dist) is type(theirs.dist) and mine.dist.name == theirs.dist.name
    assert mine.args == theirs.args and mine.kwds == theirs.kwds
    assert type(mine.real) is type(theirs)


def test_invalid_parameters_are_left_to_scipy():
    for f in (Frozen("uniform", loc=0.0, scale=-1.0), Frozen("triang", 1.5),
              Frozen("norm", 1.0, 2.0, 3.0), Frozen("beta", 2.0), Frozen("expon", 1.0, loc=2.0),
              Frozen("loguniform", 5.0, 1.0), Frozen("beta", 0.0, 1.0),
              Frozen("norm", loc=np.nan), Frozen("lognorm", s=np.array([0.1, 0.2]))):
        assert not f._ok
        with np.errstate(all="ignore"):
            try:
                want = f.real.ppf([0.2, 0.7])
            except TypeError:  # (scipy refuses the arguments: so does the Frozen)
                with pytest.raises(TypeError):
                    f.ppf([0.2, 0.7])
                continue
            np.testing.assert_array_equal(f.ppf([0.2, 0.7]), want)


def test_pickles_copies_and_unknown_families():
    f = Frozen("beta", 2.0, 3.0, loc=1.0, scale=4.0)
    for g in (pickle.loads(pickle.dumps(f)), copy.deepcopy(f), copy.copy(f)):
        assert isinstance(g, Frozen) and (g.name, g.args, g.kwds) == (f.name, f.args, f.kwds)
        np.testing.assert_array_equal(g.ppf([0.1, 0.9]), f.ppf([0.1, 0.9]))
    assert "beta(2.0, 3.0, loc=1.0, scale=4.0)" in repr(f)
    assert not isinstance(frozen("gamma", 2.0), Frozen)
    assert frozen("gamma", 2.0).mean() == 2.0
    assert set(FAST) == {"uniform", "norm", "expon", "lognorm", "triang", "loguniform",
                         "beta", "t"}
    with pytest.raises(AttributeError):
        f._nothing  # noqa: B018


def test_quantile_helpers_are_scipys():
    for q in (0.5, 0.975, 0.995, 0.8, 1e-9):
        _same(norm_ppf(q), stats.norm.ppf(q))
        for df in (1, 7, 30.5, np.array([1.0, 2.0, 9.0, 1e6]), np.array(3)):
            _same(t_ppf(q, df), stats.t.ppf(q, df))
    _same(t_ppf(0.975, np.array([0.0, 2.0])), stats.t.ppf(0.975, np.array([0.0, 2.0])))
    counts = np.array([0, 1, 2, 5, 64, 1000, 8192, 65536])
    for p in (0.5, 0.05, 0.95, 0.0, 1.0, 0.01):
        for a in (0.05, 0.01, 0.1):
            q = np.array([[a / 2], [1 - a / 2]])
            _same(binom_ppf(q, counts, p), stats.binom.ppf(q, counts, p))
    _same(binom_ppf(np.array([0.0, 1.0]), np.array([5, 5]), 0.3),
          stats.binom.ppf(np.array([0.0, 1.0]), np.array([5, 5]), 0.3))


# ---------------------------------------------------------------- property: any parameters

_pos = st.floats(1e-3, 1e3)
_loc = st.floats(-1e9, 1e9)
_scale = st.floats(1e-6, 1e9)
_PARAMS = {
    "uniform": st.tuples(st.just(()), st.fixed_dictionaries({"loc": _loc, "scale": _scale})),
    "norm": st.tuples(st.just(()), st.fixed_dictionaries({"loc": _loc, "scale": _scale})),
    "expon": st.tuples(st.just(()), st.fixed_dictionaries({"loc": _loc, "scale": _scale})),
    "lognorm": st.tuples(st.just(()), st.fixed_dictionaries({"s": st.floats(1e-3, 5),
                                                             "scale": _scale})),
    "triang": st.tuples(st.just(()), st.fixed_dictionaries(
        {"c": st.floats(0, 1), "loc": _loc, "scale": _scale})),
    "loguniform": st.tuples(st.floats(1e-6, 1e3).flatmap(
        lambda a: st.tuples(st.just(a), st.floats(a * 1.001, a * 1e6))), st.just({})),
    "beta": st.tuples(st.tuples(_pos, _pos), st.fixed_dictionaries({"loc": _loc,
                                                                    "scale": _scale})),
    "t": st.tuples(st.tuples(st.floats(0.5, 1e3)), st.fixed_dictionaries(
        {"loc": _loc, "scale": _scale})),
}


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(_PARAMS)).flatmap(
    lambda name: st.tuples(st.just(name), _PARAMS[name])),
    st.lists(st.floats(2.0**-31, 1 - 2.0**-31), min_size=1, max_size=40))
def test_any_parameters_give_scipys_numbers(case, qs):
    name, (args, kwds) = case
    mine, theirs = Frozen(name, *args, **kwds), getattr(stats, name)(*args, **kwds)
    q = np.array(qs)
    with np.errstate(all="ignore"):
        _same(mine.ppf(q), theirs.ppf(q))
        _same(mine.ppf(q[0]), theirs.ppf(q[0]))
    for a, b in zip(mine.support(), theirs.support(), strict=True):
        _same(a, b)


def test_a_family_not_computed_here_is_scipys(monkeypatch):
    """A scipy without the private ufunc behind beta.ppf: the beta is scipy's own."""
    import mc_tco.distributions.frozen as fz

    monkeypatch.delitem(fz.FAST, "beta")
    f = Frozen("beta", 2.0, 3.0)
    assert not f._ok
    np.testing.assert_array_equal(f.ppf([0.3, 0.6]), stats.beta(2.0, 3.0).ppf([0.3, 0.6]))
    assert f.support() == stats.beta(2.0, 3.0).support()
    assert not isinstance(fz.frozen("beta", 2.0, 3.0), Frozen)
