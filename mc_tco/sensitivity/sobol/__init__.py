"""Sobol' indices over a whole grid of outputs at once, from sums that stream by chunk.

Notation: for base sample ``i`` of a Saltelli design the outputs of rows ``A_i``, ``B_i``
and ``AB_i^(j)`` (``A`` with the columns of factor ``j`` from ``B``) are ``a``, ``b`` and
``c_j``; ``d_j = c_j - a``. Every estimator below is a smooth function of means over base
samples of the monomials ``a, b, a^2, b^2, a b, d_j, a d_j, b d_j, d_j^2`` (``E[.]``), so
:class:`SobolSums` keeps their sums, adds a chunk of base samples with
:meth:`SobolSums.add` and merges with ``+``: a run can be split in any chunks (or over
Dask workers, or over independent scrambles) and gives the same numbers.

Estimators (``estimator=``), with ``V = (E[a^2] + E[b^2]) / 2 - ((E[a] + E[b]) / 2)^2``:

``"saltelli"`` (SALib's ``sobol.analyze``; the default)
    first order Saltelli et al. (2010), table 2 (b): ``S1_j = E[(b - m) d_j] / V``;
    total Jansen (1999), table 2 (f): ``ST_j = E[d_j^2] / (2 V)``. The output is centred
    on ``m``, the mean of all design rows, as SALib does (its ``(Y - Y.mean()) / Y.std()``),
    so the point estimates equal SALib's on the same design.
``"sobol2007"``
    first order as ``"saltelli"`` (Sobol' et al. 2007, also Mauntz-Kucherenko);
    total Sobol' et al. (2007), table 2 (d) of Saltelli et al. (2010):
    ``ST_j = E[(a - m)(a - c_j)] / V``.
``"janon"``
    Janon et al. (2014), eq. (T_N), the estimator that takes the mean and variance from
    both samples of the pair (also Monod et al. 2006): with ``mu = (E[b] + E[c_j]) / 2``,
    ``S1_j = (E[b c_j] - mu^2) / ((E[b^2] + E[c_j^2]) / 2 - mu^2)``; total one minus the
    same closed index of the complementary pair ``(a, c_j)``, which is Jansen's numerator
    over the pair's own variance: ``ST_j = E[d_j^2] / 2 / ((E[a^2] + E[c_j^2]) / 2 - nu^2)``
    with ``nu = (E[a] + E[c_j]) / 2``.
``"martinez"``
    Martinez (2011), correlation coefficients (Baudin et al. 2016):
    ``S1_j = corr(b, c_j)``, ``ST_j = 1 - corr(a, c_j)`` (the latter computed as
    ``(var d_j - (sd a - sd c_j)^2) / (2 sd a sd c_j)``, exact and free of cancellation
    for small indices).

Second order (any estimator), Saltelli (2002) as SALib:
``S2_jk = E[(ba_j - m)(c_k - m) - (a - m)(b - m)] / V - S1_j - S1_k`` with the
``"saltelli"`` first-order terms, ``ba_j`` the output of row ``BA^(j)``.

Confidence intervals, ``ci=`` in :meth:`SobolSums.result` and :func:`rqmc_result`:

``"rqmc"`` (:func:`rqmc_result`)
    ``R`` independent scrambles of the design (randomized QMC, Owen 1997; L'Ecuyer &
    Lemieux 2002; Owen 2023, ch. 17): the half-width is ``t_{R-1, (1+c)/2} sd / sqrt(R)``
    with ``sd`` the standard deviation of the ``R`` replicate estimates, centred on the
    pooled estimate (the sums of all replicates merged). For the total index the
    half-width is the larger of that and the same interval on the log scale of the
    replicate estimates, ``ST (exp(t sd(log ST_r) / sqrt(R)) - 1)``, where every ``ST_r``
    is positive (heavy-tailed outputs make them right-skewed; :func:`log_scale_halfwidth`,
    ``docs/estimators.md``). The only one of the three that
    measures the error of a scrambled Sobol' design; the other two assume independent
    base samples and overstate it, by orders of magnitude for smooth outputs.
``"asymptotic"``
    Delta method (central limit theorem for the vector of means; Janon et al. 2014,
    prop. 2.2 for their estimator): the variance of the estimator's linearisation
    ``psi_i = grad g . (t_i - E t)`` across base samples, which needs the sums of all
    monomials of ``a, b, d_j`` up to degree 4 (``moments=True``). The gradient is taken by
    complex step (Squire & Trapp 1998), exact to rounding. Normal quantile. Valid for
    independent (Monte Carlo) base samples; conservative on a scrambled Sobol' design.
``"bootstrap"``
    Poisson bootstrap (Hanley & MacGibbon 2006; Chamandy et al. 2012): resample ``b``
    weights base sample ``i`` by ``w_bi ~ Poisson(1)``; the weights of base sample ``i``
    depend only on the seed and ``i`` (drawn per fixed block of :data:`BLOCK` samples), so
    the bootstrap streams too, and every weighted sum of every cell (and the point sums,
    as a row of ones) is one matrix product ``W @ F``. As in SALib the half-width is
    ``z_(1+c)/2`` times the standard deviation of the resampled estimates, and each
    resample keeps the centring of the full sample. Assumes independent base samples.

References
----------
Baudin, M., Boumhaout, K., Delage, T., Iooss, B., Martinez, J.-M. (2016). Numerical
stability of Sobol' indices estimation formula. Proceedings of SAMO 2016, 50-51.

Chamandy, N., Muralidharan, O., Najmi, A., Naidu, S. (2012). Estimating uncertainty for
massive data streams. Google technical report.

Hanley, J. A., MacGibbon, B. (2006). Creating non-parametric bootstrap samples using
Poisson frequencies. Computer Methods and Programs in Biomedicine 83, 57-62.

Janon, A., Klein, T., Lagnoux, A., Nodet, M., Prieur, C. (2014). Asymptotic normality and
efficiency of two Sobol index estimators. ESAIM: Probability and Statistics 18, 342-364.

Jansen, M. J. W. (1999). Analysis of variance designs for model output. Computer Physics
Communications 117, 35-43.

L'Ecuyer, P., Lemieux, C. (2002). Recent advances in randomized quasi-Monte Carlo
methods. In Modeling Uncertainty, Kluwer, 419-474.

Martinez, J.-M. (2011). Analyse de sensibilité globale par décomposition de la variance.
Journée des utilisateurs de Salome, GdR MASCOT-NUM, Institut Henri Poincaré.

Monod, H., Naud, C., Makowski, D. (2006). Uncertainty and sensitivity analysis for crop
models. In Working with Dynamic Crop Models, Elsevier, 55-100.

Owen, A. B. (1997). Scrambled net variance for integrals of smooth functions. Annals of
Statistics 25, 1541-1562.

Owen, A. B. (2023). Practical Quasi-Monte Carlo Integration. https://artowen.su.domains/mc/

Saltelli, A. (2002). Making best use of model evaluations to compute sensitivity indices.
Computer Physics Communications 145, 280-297.

Saltelli, A., Annoni, P., Azzini, I., Campolongo, F., Ratto, M., Tarantola, S. (2010).
Variance based sensitivity analysis of model output. Computer Physics Communications 181,
259-270.

Sobol', I. M., Tarantola, S., Gatelli, D., Kucherenko, S. S., Mauntz, W. (2007).
Estimating the approximation error when fixing unessential factors in global sensitivity
analysis. Reliability Engineering & System Safety 92, 957-960.

Squire, W., Trapp, G. (1998). Using complex variables to estimate derivatives of real
functions. SIAM Review 40, 110-112.
"""

from __future__ import annotations

from mc_tco.sensitivity.sobol.api import indices_dataset, sobol_indices, sobol_indices_rqmc
from mc_tco.sensitivity.sobol.estimators import CI_METHODS, ESTIMATORS
from mc_tco.sensitivity.sobol.rqmc import (
    ci_method_text,
    flag_negative,
    log_scale_halfwidth,
    rqmc_result,
    rqmc_seeds,
)
from mc_tco.sensitivity.sobol.sums import BLOCK, SobolSums, poisson_weights

__all__ = [
    "BLOCK",
    "CI_METHODS",
    "ESTIMATORS",
    "SobolSums",
    "ci_method_text",
    "flag_negative",
    "indices_dataset",
    "log_scale_halfwidth",
    "poisson_weights",
    "rqmc_result",
    "rqmc_seeds",
    "sobol_indices",
    "sobol_indices_rqmc",
]
