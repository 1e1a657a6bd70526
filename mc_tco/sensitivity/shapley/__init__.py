"""Shapley effects of dependent inputs under a Gaussian copula, for vector outputs.

The Shapley effect of input ``i`` (Owen 2014) shares the output variance among the inputs
with the Shapley value of the cost ``c(J)``: over the ``d!`` orders of the inputs, the mean
increase of ``c`` when ``i`` joins the inputs before it. With ``c(J) = E[Var(Y | X_-J)]``
(Song, Nelson & Staum 2016, theorem 1: the same Shapley values as ``Var(E[Y | X_J])``)
the effects are non-negative in the limit, sum to ``Var(Y)``, and stay meaningful when the
inputs are dependent, where Sobol' indices of single inputs are not defined. For
independent inputs and an additive model they equal S1 = ST; with interactions the
interaction variance is split equally among the inputs in it.

Estimator (Song, Nelson & Staum 2016, algorithm "random permutations")
--------------------------------------------------------------------
``Var(Y)`` from ``n_var`` joint draws. Then for each of ``n_perm`` random permutations
``pi`` and each ``j = 1 .. d-1`` with ``J = {pi_1 .. pi_j}``: ``n_outer`` draws of
``X_-J``, and for each ``n_inner`` draws of ``X_J | X_-J``; ``c(J)`` is the mean over the
outer draws of the sample variance (ddof 1) of ``Y`` over the inner draws (unbiased for any
``n_inner >= 2``); ``c({}) = 0`` and ``c(all) = Var(Y)``. Input ``pi_j`` gets
``c(J_j) - c(J_{j-1})``.

Conditional sampling is exact for a Gaussian copula: on the normal scores
``z = Phi^-1(F(x))``, ``z ~ N(0, R)``. Order the inputs ``rho = reversed(pi)`` and let
``L`` be the Cholesky factor of ``R[rho, rho]``: ``z_rho = L w`` with ``w ~ N(0, I)``, and
keeping the first ``d - j`` entries of ``w`` (those of ``X_-J``) while drawing the last
``j`` afresh samples ``z_J | z_-J`` exactly. One Cholesky factor serves all ``j`` of a
permutation. Within a permutation the draws are common random numbers: the outer ``w`` and
the inner fresh draws are shared across ``j`` (each ``c(J_j)`` keeps its exact
distribution, so the estimator stays unbiased), which makes the differences
``c(J_j) - c(J_{j-1})`` less noisy than with independent draws (measured on a 10-input
linear-Gaussian case: root-mean-square error 0.018 against 0.026).

Shared outer row (``shared=True``, the default). Given ``X_-J``, the outer draw's own
entries for ``J`` are one more draw of ``X_J | X_-J``, independent of the fresh ones: the
outer draw's row (all of ``w`` kept, a joint draw ``z ~ N(0, R)``) is a valid first inner
draw of every set ``J`` of its permutation. So each set takes ``n_inner - 1`` fresh rows
beside that one row, which is evaluated once per permutation: ``(d - 1)(n_inner - 1) + 1``
rows a permutation instead of ``(d - 1) n_inner`` (91 against 135 for the default book's
46 inputs), the same unbiased ``c(J)`` (a sample variance of ``n_inner`` draws that are
i.i.d. given ``X_-J``), and the permutations still i.i.d. (the half-widths below hold as
they are). Its one common row across ``j`` is a further common random number. Measured
at the same permutations: on the 10-input linear-Gaussian case, root-mean-square error
0.0177 against 0.0176 (30 seeds; 19 rows a permutation against 27); on Ishigami, 0.043
against 0.044; on the default book at its 4,096 permutations
(``benchmarks/shapley_shared.py``), 389,120 rows against 569,344 (0.68x), 0.75x the
seconds, half-widths 0.77x on average over its 2,530 effects (median per effect 0.90x),
the two estimates within 1.44 combined half-widths of each other everywhere.

Cost and defaults
-----------------
Model evaluations: ``n_var + n_perm n_outer ((d - 1)(n_inner - 1) + 1)`` (random
permutations; ``n_var + n_perm (d - 1) n_outer n_inner`` with ``shared=False``) or
``n_var + (2^d - 2) n_outer n_inner`` (exact, all subsets). Song et al. recommend
``n_outer = 1``, ``n_inner = 3`` and as many permutations as the budget allows. For
``d = 30`` inputs the defaults ``n_perm = 2048, n_outer = 1, n_inner = 3, n_var = 4096``
cost ``4096 + 2048 * (29 * 2 + 1) = 124,928`` evaluations (182,272 with fresh inner
draws, which on a 30-input linear-Gaussian case with ten correlated triples and 200
output cells took 2-5 s, 2 shared cores, cheap model, and gave 95% half-widths of 0.011
on average, 0.016 at most, on effects between 0.001 and 0.13, all covering the closed
form).

Half-widths
-----------
The permutations, with their draws, are independent and identically distributed, so the
normalised effect is a mean of i.i.d. per-permutation contributions
``g_i(pi) = D_i(pi) / V + [pi_d = i]`` (``D`` the increments without the ``V`` term); its
variance is estimated by their sample variance over permutations, plus the delta-method
term of the independent ``V`` estimate (``(mean D_i)^2 Var(V^) / V^4``). The half-width
is the normal quantile times its square root. (For the exact variant the ``c(J)`` of the
subsets are independent: the variance is the sum of their variances, each from the spread
over its ``n_outer`` outer draws, so ``n_outer >= 2`` there.)

Modules
-------
:mod:`.effects` the estimator and its half-widths (:func:`shapley_effects`,
:func:`evaluation_count`); :mod:`.costs` the sums over permutations or subsets;
:mod:`.draws` the conditional draws and the model's outputs on them; :mod:`.closed_form`
the linear-Gaussian closed form (:func:`linear_gaussian_shapley`).

References
----------
A. B. Owen, "Sobol' indices and Shapley value", SIAM/ASA JUQ 2 (2014) 245-251.
E. Song, B. L. Nelson, J. Staum, "Shapley effects for global sensitivity analysis: theory
and computation", SIAM/ASA JUQ 4 (2016) 1060-1083.
B. Iooss, C. Prieur, "Shapley effects for sensitivity analysis with correlated inputs:
comparisons with Sobol' indices, numerical estimation and applications", IJUQ 9 (2019).
"""

from __future__ import annotations

from mc_tco.sensitivity.shapley.closed_form import linear_gaussian_shapley
from mc_tco.sensitivity.shapley.effects import evaluation_count, shapley_effects

__all__ = ["evaluation_count", "linear_gaussian_shapley", "shapley_effects"]
