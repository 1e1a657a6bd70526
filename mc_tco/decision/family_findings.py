"""What the family check found, computed once from a results file for every renderer.

:func:`mc_tco.engine.family.family_check` stores P(target > 0) and the break-even
quantiles under every variant of the distributions' shapes (``family_variant``: the book,
all bounded inputs uniform / triangular / PERT at once, then one input at a time).
:func:`family_findings` reads them at the reported points into a :class:`FamilyFindings` of
numbers (no text); :mod:`mc_tco.report.words.family` words it for the terminal and the
memo, so both say the same thing.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import numpy as np
import xarray as xr

__all__ = ["BreakevenRow", "FamilyFindings", "FamilyRow", "family_findings", "family_rows"]


@dataclass(frozen=True)
class FamilyRow:
    """P(target > 0) at one reported point (strategy and demand) under every variant.

    ``book`` is the value as written, ``all`` the all-at-once variants by family, ``singles``
    ``(variant, input, P)`` of the one-at-a-time variants, ``most_moving`` the one of them
    farthest from ``book``; ``beyond_mc_error`` the variants whose change lies beyond its
    Monte Carlo interval, ``flips`` those that also put P on the other side of 50%;
    ``not_evaluated`` the one-at-a-time variants the check did not evaluate at this point
    (it evaluates them at the report points, claim points and focus only), left out of the
    rest.
    """

    point: dict
    book: float
    all: dict[str, float]
    singles: tuple[tuple[str, str, float], ...]
    min: float
    max: float
    argmin: str
    argmax: str
    most_moving: tuple[str, str, float] | None
    beyond_mc_error: tuple[str, ...]
    flips: tuple[str, ...]
    not_evaluated: tuple[str, ...] = ()

    @property
    def moved(self) -> bool:
        """Whether any variant changes P here."""
        return self.min != self.max


@dataclass(frozen=True)
class BreakevenRow:
    """The 5%, 50% and 95% quantiles (in ``unit``) and the share that never breaks even of one
    per-sample output (``name``, e.g. ``breakeven_demand``) at ``point`` under ``variant``."""

    name: str
    point: dict
    variant: str
    q05: float
    q50: float
    q95: float
    never: float
    unit: str


@dataclass(frozen=True)
class FamilyFindings:
    """The family check of a results file, as numbers; see :func:`family_findings`."""

    swapped: tuple[str, ...]
    unchanged: tuple[str, ...]
    variants: int
    seconds: float
    indicator_label: str
    rows: tuple[FamilyRow, ...]
    breakeven: tuple[BreakevenRow, ...]
    #: the unit of each grid dim, for the labels of the points
    dim_units: dict[str, str]

    @property
    def flips(self) -> list[FamilyRow]:
        """The rows whose answer flips with the shape."""
        return [r for r in self.rows if r.flips]

    @property
    def widest(self) -> FamilyRow | None:
        """The row whose P spreads most over the variants, if any variant moves one."""
        big = max(self.rows, key=lambda r: r.max - r.min) if self.rows else None
        return big if big is not None and big.moved else None


def _sel_point(da: xr.DataArray, point: dict) -> xr.DataArray:
    for k, v in point.items():
        da = da.sel({k: v}) if isinstance(v, str) else da.sel({k: v}, method="nearest")
    return da


def _report_points(ds: xr.Dataset, da: xr.DataArray,
                   skip=("family_variant", "ci_bound", "quantile")) -> list[dict]:
    """Every combination of the report points (or up to 5 grid values) of ``da``'s dims."""
    report = ds.mc_tco.report
    dims = [d for d in da.dims if d not in skip]
    # label dims (strategy) first, so rows read strategy by strategy
    dims.sort(key=lambda d: 0 if not np.issubdtype(da[d].dtype, np.number) else 1)
    choices = []
    for d in dims:
        if d in report:
            choices.append(list(report[d]))
        else:
            vals = list(da[d].values)
            if len(vals) > 5:
                vals = [vals[i] for i in np.linspace(0, len(vals) - 1, 5).astype(int)]
            choices.append([v.item() if hasattr(v, "item") else v for v in vals])
    return [dict(zip(dims, c, strict=True)) for c in product(*choices)]


def family_rows(ds: xr.Dataset, target: str | None = None,
                points: list[dict] | None = None) -> tuple[FamilyRow, ...]:
    """P(``target`` > 0) under every variant at each of ``points`` (default: the file's
    first target at its reported points), with the rule that says whether the answer
    depends on the families: a variant moves P beyond its Monte Carlo error when the
    paired change interval excludes 0, and flips the answer when it also puts P on the
    other side of 50% (:attr:`FamilyRow.beyond_mc_error`, :attr:`FamilyRow.flips`).
    """
    targets = ds.mc_tco.targets
    p = ds["family_check_p_positive"]
    change = ds["family_check_p_positive_change_ci"]
    if target is None:
        target = targets[0] if targets else None
    ind = f"{target}>0" if target else str(p["target"].values[-1])
    p, change = p.sel(target=ind), change.sel(target=ind)
    inp = ds["family_variant_input"].values
    fam = ds["family_variant_family"].values
    labels = [str(v) for v in ds["family_variant"].values]
    rows = []
    for point in _report_points(ds, p) if points is None else points:
        vals = _sel_point(p, point).transpose("family_variant").values
        cv = _sel_point(change, point).transpose("family_variant", "ci_bound").values
        book = float(vals[0])
        # NaN: a one-at-a-time variant not evaluated here (mc_tco.engine.family_eval)
        seen = [i for i in range(len(vals)) if not np.isnan(vals[i])]
        singles = tuple((labels[i], str(inp[i]), float(vals[i]))
                        for i in seen if inp[i] not in ("", "all"))
        beyond = [i for i in seen[1:] if cv[i, 0] > 0 or cv[i, 1] < 0]
        lo, hi = min(seen, key=lambda i: vals[i]), max(seen, key=lambda i: vals[i])
        rows.append(FamilyRow(
            point=point,
            book=book,
            all={str(fam[i]): float(vals[i]) for i in range(len(vals)) if inp[i] == "all"},
            singles=singles,
            min=float(vals[lo]),
            max=float(vals[hi]),
            argmin=labels[lo],
            argmax=labels[hi],
            most_moving=max(singles, key=lambda t: abs(t[2] - book)) if singles else None,
            beyond_mc_error=tuple(labels[i] for i in beyond),
            # the majority answer changes, by more than the Monte Carlo error of the change
            flips=tuple(labels[i] for i in beyond if (vals[i] > 0.5) != (book > 0.5)),
            not_evaluated=tuple(labels[i] for i in range(len(vals)) if i not in seen),
        ))
    return tuple(rows)


def _breakeven(ds: xr.Dataset) -> tuple[BreakevenRow, ...]:
    """The book and the all-at-once variants of every per-sample output of the check."""
    names = [k[len("family_check_"):-len("_quantile")] for k in map(str, ds.data_vars)
             if k.startswith("family_check_") and k.endswith("_quantile")]
    keep = [i for i, v in enumerate(ds["family_variant_input"].values) if v in ("", "all")]
    out = []
    for name in names:
        q = ds[f"family_check_{name}_quantile"]
        never = ds[f"family_check_{name}_p_never"]
        for point in _report_points(ds, q):
            qs, ns = _sel_point(q, point), _sel_point(never, point)
            for i in keep:
                qq = qs.isel(family_variant=i)
                q05, q50, q95 = (float(qq.sel(quantile=x)) for x in (0.05, 0.5, 0.95))
                out.append(BreakevenRow(
                    name, point, str(ds["family_variant"].values[i]), q05, q50, q95,
                    never=float(ns.isel(family_variant=i)), unit=q.attrs.get("units", "")))
    return tuple(out)


def family_findings(ds: xr.Dataset) -> FamilyFindings | None:
    """The family check of ``ds`` at its reported points, or None if it was not run.

    Returns
    -------
    FamilyFindings
        P(target > 0) (a share in [0, 1]) per reported strategy and demand under every
        variant, and the break-even quantiles (in their unit, tokens/month for
        ``breakeven_demand``) under the book and the all-at-once variants.
    """
    if "family_check_p_positive" not in ds:
        return None
    return FamilyFindings(
        swapped=tuple(ds.mc_tco.family_swapped),
        unchanged=tuple(ds.mc_tco.family_unchanged),
        variants=int(ds.sizes["family_variant"]),
        seconds=ds.mc_tco.run.family_check_seconds,
        indicator_label=ds.mc_tco.run.indicator_label,
        rows=family_rows(ds),
        breakeven=_breakeven(ds),
        dim_units={str(k): ds[k].attrs.get("units", "") for k in ds.dims if k in ds},
    )
