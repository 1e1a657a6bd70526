"""Shapley effects' draws: exact conditional sampling of a Gaussian copula and the model's
outputs on those draws (:mod:`mc_tco.sensitivity.shapley` describes the estimator)."""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr

from mc_tco.sensitivity.lazy_jit import lazy_jit

_U_LOW = 2.0**-53
_U_HIGH = 1.0 - 2.0**-53


def _to_inputs(z, ppf):
    """Normal scores (..., d) -> input values (rows, d) through ``ppf_j(Phi(z_j))``.

    Each ``ppf_j`` is evaluated once per distinct score: an input the copula leaves
    independent of the inputs before it in a permutation's order takes the same score on
    every set ``J`` (the outer or one of the inner draws), so the (costly: scipy's beta) ppf
    runs on a few percent of the rows. The values are the same, bit for bit: ``ppf_j``
    gets the sorted distinct probabilities of its column (``np.unique``). For a large
    block the distinct scores come from a hash table (:func:`.scores.distinct_scores`, no
    sort of the whole column), ``Phi`` and the clip run on those only, and ``np.unique``
    of their probabilities gives ``ppf_j`` the same array; the result is then
    column-major (each input's values contiguous, as the model's input Dataset takes them).
    """
    d = z.shape[-1]
    rows = z.reshape(-1, d)
    if rows.size < _DISTINCT_MIN:
        u = np.clip(ndtr(rows), _U_LOW, _U_HIGH)
        columns = []
        for j, f in enumerate(ppf):
            distinct, where = np.unique(u[:, j], return_inverse=True)
            columns.append(np.asarray(f(distinct), dtype=float)[where])
        return np.column_stack(columns)
    from mc_tco.sensitivity.shapley.scores import distinct_scores

    codes, scores = distinct_scores(rows.T)
    x = np.empty(codes.shape)
    for j, f in enumerate(ppf):
        distinct, where = np.unique(np.clip(ndtr(scores[j]), _U_LOW, _U_HIGH),
                                    return_inverse=True)
        x[j] = np.asarray(f(distinct), dtype=float)[where[codes[j]]]
    return x.T


#: scores of a block from which :func:`_to_inputs` finds the distinct ones by hashing
_DISTINCT_MIN = 2**16


def _inner_var(y):
    """``y.var(axis=3, ddof=1)`` for y (P, J, O, I, K), the same bits, several times faster:
    numpy's reduction over a short middle axis is slow (:func:`_sample_var`)."""
    return _sample_var(y[:, :, :, 0], y[:, :, :, 1:])


def _shared_var(y0, y):
    """The sample variance (ddof 1) of ``y0`` (P, O, K), each set's first inner draw (the
    outer draw's own row, shared by every set of its permutation), with the fresh draws
    ``y`` (P, J, O, F, K) of each set: (P, J, O, K), without the (P, J, O, F + 1, K) array
    of them all (:func:`_sample_var`)."""
    p, j, o, _, k = y.shape
    return _sample_var(np.broadcast_to(y0[:, None], (p, j, o, k)), y)


def _sample_var(first, rest):
    """The sample variance (ddof 1) of ``first`` (P, J, O, K) and ``rest`` (P, J, O, F, K)
    together, draw by draw in numpy's order of ``var`` (the mean of the ``F + 1`` draws,
    then the squared deviations), so the bits of ``var(axis=3, ddof=1)`` of them stacked:
    by a numba loop for a large block (one pass), else slice by slice in numpy."""
    p, j, o, f, k = rest.shape
    if rest.size >= _INNER_KERNEL_MIN:
        out = np.empty((p, j, o, k))
        _sample_var_kernel(first, rest, out)
        return out
    mean = np.array(first, dtype=float)
    for i in range(f):
        mean += rest[:, :, :, i]
    mean /= f + 1
    dev = first - mean
    ss = dev * dev
    for i in range(f):
        np.subtract(rest[:, :, :, i], mean, out=dev)
        dev *= dev
        ss += dev
    ss /= f
    return ss


#: values of a block from which :func:`_sample_var` runs its numba loop
_INNER_KERNEL_MIN = 2**18


@lazy_jit
def _sample_var_kernel(first, rest, out):  # pragma: no cover - numba
    """``out[p, j, o, c]``: the sample variance of ``first[p, j, o, c]`` and
    ``rest[p, j, o, :, c]``, :func:`_sample_var`'s operations in order."""
    n_p, n_j, n_o, n_f, k = rest.shape
    for p in range(n_p):
        for j in range(n_j):
            for o in range(n_o):
                for c in range(k):
                    y0 = first[p, j, o, c]
                    mean = y0
                    for i in range(n_f):
                        mean += rest[p, j, o, i, c]
                    mean /= n_f + 1
                    dev = y0 - mean
                    ss = dev * dev
                    for i in range(n_f):
                        dev = rest[p, j, o, i, c] - mean
                        ss += dev * dev
                    out[p, j, o, c] = ss / n_f


def _evaluate(evaluate, x):
    y = np.asarray(evaluate(x), dtype=float)
    if y.ndim == 1:
        y = y[:, None]
    if y.shape[0] != x.shape[0]:
        raise ValueError(f"evaluate returned {y.shape[0]} rows for {x.shape[0]} input rows")
    return y.reshape(x.shape[0], -1)


def _conditional_scores(chol, order, n_fixed, w_outer, w_fresh):
    """Normal scores with the first ``n_fixed`` of ``order`` kept, the rest redrawn.

    chol (S, d, d) Cholesky of R[order, order] (lower triangular); order (S, d); n_fixed
    (S, J) per set; w_outer (S, O, d); w_fresh (S, O, I, d). Returns z (S, J, O, I, d) in
    input order: from the numba kernel of :mod:`.scores` for a large block where it gives
    ``np.einsum``'s bits, else from ``np.einsum`` itself.
    """
    from mc_tco.sensitivity.shapley import scores

    terms = n_fixed.size * w_fresh.shape[1] * w_fresh.shape[2] * order.shape[1] ** 2
    if terms >= scores.KERNEL_MIN_TERMS and scores.kernel_matches():
        return scores.conditional_scores(chol, order, n_fixed, w_outer, w_fresh)
    return scores.einsum_scores(chol, order, n_fixed, w_outer, w_fresh)


def _variance(evaluate, ppf, chol_full, n_var, rng):
    d = chol_full.shape[0]
    z = rng.standard_normal((n_var, d)) @ chol_full.T
    y = _evaluate(evaluate, _to_inputs(z, ppf))
    v = y.var(axis=0, ddof=1)
    m4 = np.mean((y - y.mean(axis=0)) ** 4, axis=0)
    # a cell that varies only by rounding (relative 1e-12) counts as constant
    v = np.where(v > (1e-12 * np.abs(y.mean(axis=0))) ** 2, v, 0.0)
    return v, np.maximum(m4 - v**2, 0.0) / n_var  # Var(V^) ~ (mu4 - sigma^4) / n
