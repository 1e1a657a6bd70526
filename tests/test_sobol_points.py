"""The scrambled Sobol' points of :mod:`mc_tco.sobol_points` are scipy's, bit for bit:
``scipy.stats.qmc.Sobol(d, scramble=True, seed=seed)``, fast-forwarded, then ``random``."""

import warnings

import numpy as np
import pytest
from scipy.stats import qmc

from mc_tco.sobol_points import BITS, MAX_DIMS, ScrambledSobol


def _scipy(d: int, seed: int, start: int, n: int) -> np.ndarray:
    engine = qmc.Sobol(d, scramble=True, seed=seed)
    if start:
        engine.fast_forward(start)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # (the balance warning)
        return engine.random(n)


@pytest.mark.parametrize("d", [1, 2, 3, 13, 92, 301])
@pytest.mark.parametrize("seed", [0, 7, 2**40 + 3])
def test_points_equal_scipys(d, seed):
    for start, n in [(0, 1), (0, 2), (0, 1000), (1, 1), (1, 63), (5, 300), (4096, 4096),
                     (12345, 17)]:
        got = ScrambledSobol(d, seed).points(start, start + n)
        want = _scipy(d, seed, start, n)
        assert got.dtype == want.dtype == np.float64
        assert got.shape == want.shape == (n, d)
        np.testing.assert_array_equal(got, want)


def test_far_points_equal_scipys():
    """Gray codes with the high bits set (points near 2^29)."""
    start = 2**29 - 5
    np.testing.assert_array_equal(ScrambledSobol(4, 3).points(start, start + 10),
                                  _scipy(4, 3, start, 10))


def test_unscrambled_start_of_the_sequence():
    """Without the scramble's shift, point 1 of every dimension is 1/2 (a Sobol' sequence's
    first points): the direction numbers' top bit."""
    from mc_tco.sobol_points import _directions

    v = _directions(50)
    assert np.all(v[:, 0] == 2 ** (BITS - 1))
    assert v.dtype == np.uint32


def test_empty_and_bad_ranges():
    assert ScrambledSobol(3, 0).points(10, 10).shape == (0, 3)
    with pytest.raises(ValueError, match="points 5 to 4"):
        ScrambledSobol(3, 0).points(5, 4)
    with pytest.raises(ValueError, match="1 to 21201 dimensions"):
        ScrambledSobol(MAX_DIMS + 1, 0)


def test_without_scipys_table_scipys_engine_gives_the_points(monkeypatch, tmp_path):
    """A scipy that moved its data file: the points come from its engine, the same."""
    import mc_tco.sobol_points as sp

    monkeypatch.setattr(sp, "_table_file", lambda: tmp_path / "missing.npz")
    seq = ScrambledSobol(5, 11)
    assert seq._sv is None
    np.testing.assert_array_equal(seq.points(3, 40), _scipy(5, 11, 3, 37))
    with pytest.raises(ValueError, match="dimensions"):
        ScrambledSobol(0, 1)
