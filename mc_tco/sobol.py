"""Sobol' indices over a whole grid of outputs at once, from sums that stream by chunk.

The estimators are those of SALib's ``sobol.analyze``:

* first order, Saltelli et al. (2010), eq. (b) of table 2:
  ``S1_j = mean(B (AB_j - A)) / V``;
* total order, Jansen (1999), as in Saltelli et al. (2010), table 2 (f):
  ``ST_j = mean((A - AB_j)^2) / (2 V)``;
* second order, Saltelli (2002): ``S2_jk = mean(BA_j AB_k - A B) / V - S1_j - S1_k``;

with ``V`` the variance of the ``A`` and ``B`` rows together and the output centred on the
mean of all design rows, as SALib does (its ``Y = (Y - Y.mean()) / Y.std()``), so the point
estimates equal SALib's on the same design.

Every estimate is a ratio of means over base samples, so :class:`SobolSums` keeps the sums,
adds a chunk of base samples with :meth:`SobolSums.add` and merges with ``+``: a run can be
split in any chunks (or over Dask workers) and gives the same numbers.

Confidence intervals come from a Poisson bootstrap (Hanley & MacGibbon 2006; Chamandy et
al. 2012): resample ``b`` weights base sample ``i`` by ``w_bi ~ Poisson(1)`` instead of
drawing a multinomial resample. The weights of base sample ``i`` depend only on the seed and
``i`` (they are drawn per fixed block of :data:`BLOCK` samples), so the bootstrap streams
too, and every weighted sum of every cell is one matrix product ``W @ F``. As in SALib the
half-width is ``z_(1+c)/2`` times the standard deviation of the resampled estimates, and
each resample keeps the centring of the full sample.

References
----------
Saltelli, A. (2002). Making best use of model evaluations to compute sensitivity indices.
Computer Physics Communications 145, 280-297.

Saltelli, A., Annoni, P., Azzini, I., Campolongo, F., Ratto, M., Tarantola, S. (2010).
Variance based sensitivity analysis of model output. Computer Physics Communications 181,
259-270.

Jansen, M. J. W. (1999). Analysis of variance designs for model output. Computer Physics
Communications 117, 35-43.

Hanley, J. A., MacGibbon, B. (2006). Creating non-parametric bootstrap samples using
Poisson frequencies. Computer Methods and Programs in Biomedicine 83, 57-62.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import xarray as xr
from scipy import stats

__all__ = ["BLOCK", "SobolSums", "poisson_weights", "sobol_indices"]

#: base samples per block of bootstrap weights; chunks must start at a multiple of it
BLOCK = 256
_WEIGHT_STREAM = 0xB0075  # separates the bootstrap's random stream from the design's


def poisson_weights(seed: int, start: int, stop: int, resamples: int) -> np.ndarray:
    """Poisson(1) bootstrap weights of base samples ``start .. stop-1``, shape (resamples, n).

    The weights of sample ``i`` depend only on ``seed`` and ``i``: they are drawn per block
    of :data:`BLOCK` samples from ``default_rng([seed, stream, block])``.
    """
    if resamples == 0:
        return np.zeros((0, stop - start))
    out = np.empty((resamples, stop - start))
    first, last = start // BLOCK, (stop - 1) // BLOCK
    for block in range(first, last + 1):
        rng = np.random.default_rng([seed, _WEIGHT_STREAM, block])
        w = rng.poisson(1.0, size=(resamples, BLOCK))
        lo, hi = max(start, block * BLOCK), min(stop, (block + 1) * BLOCK)
        out[:, lo - start : hi - start] = w[:, lo - block * BLOCK : hi - block * BLOCK]
    return out


@dataclass
class SobolSums:
    """Sums over base samples from which S1, ST (and S2) and their bootstrap errors follow.

    Parameters
    ----------
    num_factors : int
        ``K``, the number of inputs (or groups) of the design.
    second_order : bool
        Keep the sums for S2 (needs the ``BA`` rows).
    shift : ndarray, shape (C,)
        A value subtracted from every output before summing (any value of the output will
        do; it keeps the sums of squares well conditioned). All chunks must use the same.
    resamples : int
        Number of bootstrap resamples (0 for none).
    """

    num_factors: int
    second_order: bool
    shift: np.ndarray
    resamples: int = 0
    n: float = 0.0
    point: dict[str, np.ndarray] = field(default_factory=dict)
    boot: dict[str, np.ndarray] = field(default_factory=dict)

    def add(self, y: np.ndarray, weights: np.ndarray | None = None) -> None:
        """Add base samples.

        Parameters
        ----------
        y : ndarray, shape (n, rows_per_sample, C)
            Outputs of the design rows of ``n`` base samples (order ``A, AB.., [BA..], B``)
            for ``C`` cells.
        weights : ndarray, shape (resamples, n), optional
            Poisson bootstrap weights of these samples (:func:`poisson_weights`).
        """
        k = self.num_factors
        y = np.asarray(y, dtype=float) - self.shift
        n, _, c = y.shape
        a, b = y[:, 0, :], y[:, -1, :]
        ab = y[:, 1 : k + 1, :]
        d = ab - a[:, None, :]
        terms = {
            "a": a,
            "b": b,
            "aa": a * a,
            "bb": b * b,
            "bd": b[:, None, :] * d,
            "d": d,
            "dd": d * d,
        }
        point = {name: v.sum(axis=0) for name, v in terms.items()}
        point["all"] = y.sum(axis=(0, 1))
        if self.second_order:
            ba = y[:, k + 1 : 2 * k + 1, :]
            point["ab"] = (a * b).sum(axis=0)
            point["ba"] = ba.sum(axis=0)
            point["ba_ab"] = np.einsum("njc,nkc->jkc", ba, ab)
        self._merge_dict(self.point, point)
        self.n += n
        if self.resamples:
            if weights is None or weights.shape != (self.resamples, n):
                raise ValueError(f"weights must have shape ({self.resamples}, {n})")
            flat = np.concatenate(
                [v.reshape(n, -1) for v in terms.values()]
                + ([(a * b), ba.reshape(n, -1), np.einsum("njc,nkc->njkc", ba, ab).reshape(n, -1)]
                   if self.second_order else []),
                axis=1,
            )
            prod = weights @ flat  # (resamples, M)
            boot = {"w": weights.sum(axis=1)}
            pos = 0
            shapes = {name: v.shape[1:] for name, v in terms.items()}
            if self.second_order:
                shapes.update({"ab": (c,), "ba": (k, c), "ba_ab": (k, k, c)})
            for name, shape in shapes.items():
                size = int(np.prod(shape))
                boot[name] = prod[:, pos : pos + size].reshape((self.resamples, *shape))
                pos += size
            self._merge_dict(self.boot, boot)

    @staticmethod
    def _merge_dict(into: dict, other: dict) -> None:
        for name, v in other.items():
            if name in into:
                into[name] = into[name] + v
            else:
                into[name] = np.array(v, dtype=float, copy=True)

    def __add__(self, other: SobolSums) -> SobolSums:
        out = SobolSums(self.num_factors, self.second_order, self.shift, self.resamples)
        out.n = self.n + other.n
        for src in (self, other):
            self._merge_dict(out.point, src.point)
            self._merge_dict(out.boot, src.boot)
        return out

    # ------------------------------------------------------------------ estimates

    def _estimates(self, s: dict, n, mean_all):
        """S1, ST (and S2) from sums ``s`` over ``n`` samples; broadcasts over a leading axis."""
        def ex(v):  # expand n and mean over the cell axes of v
            return np.reshape(n, np.shape(n) + (1,) * (np.ndim(v) - np.ndim(n)))

        mean_ab = (s["a"] + s["b"]) / (2 * ex(s["a"]))
        var = (s["aa"] + s["bb"]) / (2 * ex(s["a"])) - mean_ab**2
        m = mean_all
        constant = ~(var > self._tiny())
        safe = np.where(constant, 1.0, var)
        s1 = ((s["bd"] - m * s["d"]) / ex(s["bd"])) / safe[..., None, :]
        st = (0.5 * s["dd"] / ex(s["dd"])) / safe[..., None, :]
        s1 = np.where(constant[..., None, :], np.nan, s1)
        st = np.where(constant[..., None, :], np.nan, st)
        out = {"S1": s1, "ST": st, "constant": constant}
        if self.second_order:
            sab = s["d"] + s["a"][..., None, :]  # sum of AB_k rows
            vjk = (
                s["ba_ab"]
                - s["ab"][..., None, None, :]
                - m * (s["ba"][..., :, None, :] + sab[..., None, :, :]
                       - (s["a"] + s["b"])[..., None, None, :])
            ) / ex(s["ba_ab"]) / safe[..., None, None, :]
            s2 = vjk - s1[..., :, None, :] - s1[..., None, :, :]
            k = self.num_factors
            upper = np.triu(np.ones((k, k), dtype=bool), 1)[..., None]
            out["S2"] = np.where(upper & ~constant[..., None, None, :], s2, np.nan)
        return out

    def _tiny(self) -> np.ndarray:
        scale = np.abs(self.shift) + np.abs(self.point["all"] / max(self.n, 1))
        return (64 * np.finfo(float).eps * np.maximum(scale, np.finfo(float).tiny)) ** 2

    def result(self, conf_level: float = 0.95) -> dict[str, np.ndarray]:
        """Point estimates and bootstrap half-widths.

        Returns
        -------
        dict
            ``S1``, ``ST`` (K, C); ``S1_conf``, ``ST_conf`` (K, C) (NaN without bootstrap);
            ``S2``, ``S2_conf`` (K, K, C) upper triangle with second order; ``constant``
            (C,) true where the output does not vary (its indices are NaN).
        """
        rows = self.n * (2 * self.num_factors + 2 if self.second_order else self.num_factors + 2)
        mean_all = self.point["all"] / rows
        est = self._estimates(self.point, np.asarray(self.n, dtype=float), mean_all)
        z = stats.norm.ppf(0.5 + conf_level / 2)
        names = ["S1", "ST"] + (["S2"] if self.second_order else [])
        for name in names:
            est[f"{name}_conf"] = np.full_like(est[name], np.nan)
        if self.resamples > 1:
            boot = self._estimates(self.boot, self.boot["w"], mean_all)
            for name in names:
                spread = _finite_std(boot[name])
                est[f"{name}_conf"] = np.where(np.isnan(est[name]), np.nan, z * spread)
        return est


def _finite_std(x: np.ndarray) -> np.ndarray:
    """Standard deviation (ddof=1) along axis 0 over the finite values; NaN if fewer than 2."""
    ok = np.isfinite(x)
    count = ok.sum(axis=0)
    filled = np.where(ok, x, 0.0)
    mean = filled.sum(axis=0) / np.maximum(count, 1)
    ss = (np.where(ok, x - mean, 0.0) ** 2).sum(axis=0)
    return np.where(count > 1, np.sqrt(ss / np.maximum(count - 1, 1)), np.nan)


def sobol_indices(
    y: xr.DataArray,
    factors: list[str],
    *,
    dim: str = "row",
    second_order: bool = False,
    resamples: int = 100,
    conf_level: float = 0.95,
    seed: int = 0,
) -> xr.Dataset:
    """Sobol' indices of every cell of ``y``, which holds the outputs of a Saltelli design.

    Parameters
    ----------
    y : xr.DataArray
        Model outputs with dim ``dim`` of length ``N * rows_per_sample`` in SALib's order
        (as :func:`SALib.sample.sobol.sample` or :class:`mc_tco.design.SaltelliDesign`
        make it); any other dims are cells, each analysed on its own.
    factors : list of str
        Names of the inputs (or groups), in the design's column (factor) order.
    dim : str
        The design-row dim of ``y``.
    second_order : bool
        Whether the design has the ``BA`` rows; then ``S2`` is returned too.
    resamples, conf_level, seed
        Poisson bootstrap resamples, confidence level and seed of the weights.

    Returns
    -------
    xr.Dataset
        ``S1``, ``ST``, ``S1_conf``, ``ST_conf`` with dims ``("input", *cell_dims)``;
        ``S2``, ``S2_conf`` with ``("input", "input_2", *cell_dims)`` with second order.
    """
    k = len(factors)
    per = 2 * k + 2 if second_order else k + 2
    cells = [d for d in y.dims if d != dim]
    yt = y.transpose(dim, *cells)
    total = yt.sizes[dim]
    if total % per:
        raise ValueError(
            f"y has {total} rows along '{dim}', not a multiple of {per} "
            f"(= {'2K + 2' if second_order else 'K + 2'} for K = {k} factors); check "
            "'second_order' and the factor list"
        )
    n = total // per
    cell_shape = tuple(yt.sizes[c] for c in cells)
    values = yt.values.reshape(n, per, -1)
    acc = SobolSums(k, second_order, values[0, 0].copy(), resamples)
    for start in range(0, n, BLOCK):
        stop = min(n, start + BLOCK)
        acc.add(values[start:stop], poisson_weights(seed, start, stop, resamples))
    res = acc.result(conf_level)
    coords = {c: yt.coords[c] for c in cells if c in yt.coords}
    out = xr.Dataset(coords={"input": list(factors), **coords})
    for name in ("S1", "ST", "S1_conf", "ST_conf"):
        out[name] = (("input", *cells), res[name].reshape((k, *cell_shape)))
    if second_order:
        out = out.assign_coords(input_2=list(factors))
        for name in ("S2", "S2_conf"):
            out[name] = (("input", "input_2", *cells), res[name].reshape((k, k, *cell_shape)))
    out.attrs.update(conf_level=conf_level, resamples=resamples, ci_method="poisson bootstrap")
    return out
