"""Shapley effects' costs: the sums of ``c(J) = E[Var(Y | X_-J)]`` increments over random
permutations (:func:`_random_permutations`) or over every subset with the exact Shapley
weights (:func:`_all_subsets`), block by block of model rows."""

from __future__ import annotations

import itertools
from math import factorial

import numpy as np

from mc_tco.sensitivity.shapley.draws import (
    _conditional_scores,
    _evaluate,
    _inner_var,
    _shared_var,
    _to_inputs,
)


def _blocks(n_items, rows_per_item, max_rows):
    step = max(1, max_rows // max(rows_per_item, 1))
    return [(s, min(s + step, n_items)) for s in range(0, n_items, step)]


def _random_permutations(evaluate, ppf, r, n_perm, n_outer, n_inner, seed_seq, max_rows,
                         stratified, pool=None, shared=True):
    """Sums over groups of permutations (one random stream per group).

    Returns the mean increments ``D`` (d, K) without the ``V`` term, the fraction of
    permutations with each input last (d, 1), and a function of ``V`` giving the variance of
    the normalised estimate from the spread over the i.i.d. groups. With a thread ``pool``
    the blocks of rows run concurrently; their sums are added in block order, so the
    result is the same as without it. ``shared``: each outer draw is also the first inner
    draw of every ``J`` of its permutation (one model row for all ``d - 1`` sets; see
    :mod:`mc_tco.sensitivity.shapley`).
    """
    d = r.shape[0]
    size = d if stratified else 1
    n_groups = -(-n_perm // size)
    streams = seed_seq.spawn(n_groups)
    shifts = (np.arange(size)[:, None] + np.arange(d)[None, :]) % d
    fresh = n_inner - 1 if shared else n_inner  # inner draws made afresh for each J
    rows_per_group = size * n_outer * ((d - 1) * fresh + (1 if shared else 0))

    def block(bounds):
        start, stop = bounds
        perms, w_out, w_new = [], [], []
        for b in range(start, stop):
            g = np.random.default_rng(streams[b])
            perms.append(g.permutation(d)[shifts])  # the d cyclic shifts, or just one
            w_out.append(g.standard_normal((size, n_outer, d)))
            w_new.append(g.standard_normal((size, n_outer, fresh, d)))
        perm = np.concatenate(perms)
        n = len(perm)
        order = perm[:, ::-1]  # X_-J first, then J = the first j of the permutation
        chol = np.linalg.cholesky(r[order[:, :, None], order[:, None, :]])
        n_fixed = np.broadcast_to(d - np.arange(1, d)[None, :], (n, d - 1))
        outer, new = np.concatenate(w_out), np.concatenate(w_new)
        z = _conditional_scores(chol, order, n_fixed, outer, new)  # (P, d-1, O, fresh, d)
        if shared:  # the outer draws' own rows (every score kept): z ~ N(0, R)
            base = _conditional_scores(chol, order, np.full((n, 1), d), outer, new[:, :, :1])
            # (each input's scores contiguous, as the scores' kernel writes them)
            rows = np.concatenate([np.moveaxis(base, -1, 0).reshape(d, -1),
                                   np.moveaxis(z, -1, 0).reshape(d, -1)], axis=1).T
        else:
            rows = z
        y = _evaluate(evaluate, _to_inputs(rows, ppf))
        if shared:  # the outer row is the first inner draw of every J
            k = y.shape[-1]
            v = _shared_var(y[: n * n_outer].reshape(n, n_outer, k),
                            y[n * n_outer:].reshape(n, d - 1, n_outer, fresh, k))
        else:
            v = _inner_var(y.reshape(n, d - 1, n_outer, n_inner, -1))  # (P, d-1, O, K)
        # c(J_j), j = 1..d-1, (P, d-1, K): the mean over the outer draws; with one outer
        # draw (the default) that mean is the value itself (0 + v, / 1: the same bits, a
        # variance is never -0), without numpy's slow reduction over a length-1 axis
        c = v[:, :, 0].copy() if v.shape[2] == 1 else v.mean(axis=2)
        c = np.concatenate([np.zeros_like(c[:, :1]), c], axis=1)
        incr = np.diff(c, axis=1, append=0.0)  # j = 1..d; the last is -c(J_{d-1})
        contrib = np.empty_like(incr)  # (P, d inputs, K)
        contrib[np.arange(n)[:, None], perm] = incr
        is_last = np.zeros((n, d))
        is_last[np.arange(n), perm[:, -1]] = 1.0
        # per group means: the i.i.d. units of the variance estimate
        group_d = contrib.reshape(n // size, size, d, -1).mean(axis=1)
        group_last = is_last.reshape(n // size, size, d).mean(axis=1)[:, :, None]
        return (group_d.sum(0), (group_d**2).sum(0), (group_d * group_last).sum(0),
                group_last.sum(0), (group_last**2).sum(0))

    blocks = _blocks(n_groups, rows_per_group, max_rows)
    results = map(block, blocks) if pool is None else pool.map(block, blocks)
    s1 = s2 = s3 = None
    s_last = np.zeros((d, 1))
    s_last2 = np.zeros((d, 1))
    for adds in results:  # in block order, whatever ran them
        s1, s2, s3 = adds[:3] if s1 is None else (s1 + adds[0], s2 + adds[1], s3 + adds[2])
        s_last += adds[3]
        s_last2 += adds[4]
    m = n_groups
    mean_d = s1 / m
    last = s_last / m

    def var_mean_g(v):
        # g = D / V + last per group; sample variance of g over groups, divided by m
        e_g2 = s2 / m / v**2 + 2 * s3 / m / v + s_last2 / m
        e_g = mean_d / v + last
        return np.maximum(e_g2 - e_g**2, 0.0) / (m - 1)

    return mean_d, last, var_mean_g


def _all_subsets(evaluate, ppf, r, n_outer, n_inner, seed_seq, max_rows):
    """Every proper non-empty subset J: c(J) with exact Shapley weights (small d)."""
    d = r.shape[0]
    subsets = [np.array(s) for k in range(1, d) for s in itertools.combinations(range(d), k)]
    weight = np.array([factorial(k) * factorial(d - k - 1) / factorial(d) for k in range(d)])
    g = np.random.default_rng(seed_seq)
    rows_per = n_outer * n_inner
    mean_d = var_d = None
    for start, stop in _blocks(len(subsets), rows_per, max_rows):
        sets = subsets[start:stop]
        order = np.array([[*np.setdiff1d(np.arange(d), s), *s] for s in sets])
        chol = np.linalg.cholesky(r[order[:, :, None], order[:, None, :]])
        n_fixed = np.array([[d - len(s)] for s in sets])
        w_out = g.standard_normal((len(sets), n_outer, d))
        w_new = g.standard_normal((len(sets), n_outer, n_inner, d))
        z = _conditional_scores(chol, order, n_fixed, w_out, w_new)
        y = _evaluate(evaluate, _to_inputs(z, ppf)).reshape(len(sets), n_outer, n_inner, -1)
        per_outer = y.var(axis=2, ddof=1)  # (S, O, K)
        c = per_outer.mean(axis=1)  # (S, K)
        var_c = per_outer.var(axis=1, ddof=1) / n_outer
        coef = np.zeros((len(sets), d))  # Shapley coefficient of c(J) in input i's effect
        for row, s in enumerate(sets):
            inside = np.isin(np.arange(d), s)
            coef[row] = np.where(inside, weight[len(s) - 1], -weight[len(s)])
        add = coef.T @ c
        add_var = (coef**2).T @ var_c
        mean_d = add if mean_d is None else mean_d + add
        var_d = add_var if var_d is None else var_d + add_var
    return mean_d, var_d
