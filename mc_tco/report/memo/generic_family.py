"""The generic memo's section "Does the answer depend on the shape of the distributions?":
the family check of a user's book (``mc-tco report BOOK`` or ``mc-tco run BOOK
--family-check``) at the memo's point: :func:`family_blocks`, the body of
:func:`mc_tco.report.memo.shared.section_family`. See :mod:`mc_tco.report.memo.generic` and
:mod:`mc_tco.engine.family`.

The numbers are the file's: ``family_check_p_positive`` with ``family_check_p_positive_ci``
(P(target > 0) under each variant and its interval) and
``family_check_p_positive_change_ci`` (the paired change from the book as written), with
their ``*_fallback`` flags. Whether the answer depends on the families is decided by the
rule the TCO memo uses (:func:`mc_tco.decision.family_findings.family_rows`): a variant
matters when its change interval excludes 0, and flips the answer when it also puts P on
the other side of 50%.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from mc_tco.report.fmt import fmt_pct
from mc_tco.report.memo.fmt import pct_range
from mc_tco.report.memo.generic_context import GenericContext
from mc_tco.report.memo.render import Block, Paragraph, Table

__all__ = ["family_blocks", "family_numbers"]

_SKIP = ("family_variant", "ci_bound", "target")


def _at(da: xr.DataArray, point: dict) -> xr.DataArray:
    """``da`` at ``point`` (its grid dims not in ``point``: their first value)."""
    sel = {}
    for d in da.dims:
        if d in _SKIP:
            continue
        sel[d] = point[d] if d in point else da[d].values[0]
    return da.sel(sel)


def family_numbers(ctx: GenericContext, option: str | None) -> dict[str, np.ndarray]:
    """The family check of ``ctx.target`` for ``option`` at the memo's point.

    Returns
    -------
    dict
        Over ``family_variant`` (the book first): ``p``, ``lower``, ``upper`` (P(target > 0)
        and its interval, shares in [0, 1]), ``change_lower``, ``change_upper`` (the paired
        change from the book, shares), ``fallback`` and ``change_fallback`` (bool: Wilson's
        and Newcombe's intervals), ``label`` (the variant labels).
    """
    ds, point = ctx.ds, ctx.at(option)
    ind = f"{ctx.target}>0"

    def get(name: str) -> xr.DataArray:
        return _at(ds[name].sel(target=ind), point)

    ci = get("family_check_p_positive_ci")
    change = get("family_check_p_positive_change_ci")
    out = {
        "label": np.array([str(v) for v in ds["family_variant"].values]),
        "p": get("family_check_p_positive").transpose("family_variant").values,
        "lower": ci.sel(ci_bound="lower").transpose("family_variant").values,
        "upper": ci.sel(ci_bound="upper").transpose("family_variant").values,
        "change_lower": change.sel(ci_bound="lower").transpose("family_variant").values,
        "change_upper": change.sel(ci_bound="upper").transpose("family_variant").values,
    }
    for key, name in (("fallback", "family_check_p_positive_fallback"),
                      ("change_fallback", "family_check_p_positive_change_fallback")):
        n = out["p"].size
        out[key] = (get(name).transpose("family_variant").values.astype(bool)
                    if name in ds else np.zeros(n, dtype=bool))
    return out


def _pp(x: float) -> str:
    """A change of a share in percentage points: '+3.1', '-0.4', '0'."""
    v = 100 * float(x)
    return "0" if v == 0 else f"{v:+.1f}"


def _change(lo: float, hi: float) -> str:
    return f"{_pp(lo)} to {_pp(hi)} pp"


def _rows(ctx: GenericContext):
    """(option, FamilyRow) for every alternative but the baseline, at the point."""
    from mc_tco.decision.family_findings import family_rows

    opts = [o for o in ctx.options if o != ctx.baseline] if ctx.alt else [None]
    rows = family_rows(ctx.ds, ctx.target, [ctx.at(o) for o in opts])
    return list(zip(opts, rows, strict=True))


def _verdict(ctx: GenericContext, rows) -> str:
    """One plain sentence: does the answer depend on the families (the TCO memo's rule)?"""
    from mc_tco.report.words.family import _variant_name

    what = f"P({ctx.label()})"
    flips = [(o, r) for o, r in rows if r.flips]
    if flips:
        o, r = flips[0]
        who = f" for {o}" if o else ""
        names = ", ".join(_variant_name(v) for v in r.flips[:3])
        more = f" and {len(r.flips) - 3} more" if len(r.flips) > 3 else ""
        return (f"**The answer depends on the families**: {what}{who} is {fmt_pct(r.book)} "
                f"as written, and {names}{more} put it on the other side of 50%, beyond its "
                "Monte Carlo error.")
    moved = [(o, r) for o, r in rows if r.beyond_mc_error]
    if moved:
        n = sum(len(r.beyond_mc_error) for _, r in moved)
        return (f"The answer does not depend on the families: {n} variant"
                f"{'s' if n != 1 else ''} move {what} beyond its Monte Carlo error, but "
                f"{'no alternative' if ctx.alt else 'none'} crosses 50%.")
    return (f"The answer does not depend on the families: no variant moves {what} beyond "
            "its Monte Carlo error.")


def family_blocks(ctx: GenericContext) -> list | None:
    """P(target > 0) under each variant of the families, at the point (None without a
    family check of the target in the file)."""
    from mc_tco.report.words.family import _variant_name

    ds = ctx.ds
    if "family_check_p_positive" not in ds or f"{ctx.target}>0" not in \
            ds["family_check_p_positive"]["target"].values:
        return None
    swapped, unchanged = ds.mc_tco.family_swapped, ds.mc_tco.family_unchanged
    intro = (f"The book's ranges could be filled with other shapes. The family check reran the "
             f"base sample with the {len(swapped)} bounded input"
             f"{'s' if len(swapped) != 1 else ''} ({', '.join(swapped)}) swapped among "
             "uniform, triangular and PERT over the same range: all at once (the total effect "
             "of the choice) and one at a time (which input's shape matters), on the same "
             "Sobol' points"
             + (f"; {', '.join(unchanged)} kept {'its' if len(unchanged) == 1 else 'their'} "
                "unbounded distribution" if unchanged else "")
             + (f"; at {ctx.where}" if ctx.where else "") + ".")
    rows = _rows(ctx)
    if any(r.not_evaluated for _, r in rows):  # (a point off the report points: --at)
        intro += (" The one-at-a-time variants were evaluated at the report points, claim "
                  "points and focus only, not at this point: only the all-at-once ones are "
                  "compared here.")
    blocks: list[Block] = [Paragraph(intro + " " + _verdict(ctx, rows))]
    body, fallback = [], False
    for opt, r in rows:
        num = family_numbers(ctx, opt)
        labels = list(num["label"])
        keep = [i for i, v in enumerate(labels) if v == "book" or v.startswith("all:")]
        keep += [labels.index(v) for v in r.beyond_mc_error if labels.index(v) not in keep]
        if r.most_moving and labels.index(r.most_moving[0]) not in keep:
            keep.append(labels.index(r.most_moving[0]))
        for i in keep:
            mark = "†" if num["fallback"][i] else ""
            cmark = "†" if num["change_fallback"][i] else ""
            fallback |= bool(mark or cmark)
            change = ("-" if labels[i] == "book" else
                      _change(num["change_lower"][i], num["change_upper"][i]) + cmark)
            beyond = labels[i] in r.beyond_mc_error
            body.append([opt or ctx.target, _variant_name(labels[i]),
                         pct_range(num["p"][i], num["lower"][i], num["upper"][i]) + mark,
                         change, "-" if labels[i] == "book" else
                         ("yes, flips" if labels[i] in r.flips else "yes") if beyond
                         else "no"])
    blocks.append(Table(
        ["alternative" if ctx.alt else "output", "variant", f"P({ctx.label()})",
         "change from as written", "beyond Monte Carlo error?"], body, "llrrl",
        f"P with its {ctx.level} Monte Carlo interval; the change is paired (the same "
        "scenarios under both shapes), in percentage points, with its interval. One at a "
        "time, only the variants beyond their Monte Carlo error and the one moving P most "
        "are shown."
        + (" †: Wilson's interval on the pooled count (P) or Newcombe's for a paired "
           "difference (change), where the per-scramble interval cannot be formed."
           if fallback else "")
        + (f" The baseline {ctx.baseline} is left out: its {ctx.target} is 0."
           if ctx.alt and ctx.baseline in ctx.options else "")))
    for t in ctx.targets[1:]:
        sub = ctx.for_target(t)
        if f"{t}>0" in ds["family_check_p_positive"]["target"].values:
            blocks.append(Paragraph(f"For the book's other target **{t}**: "
                                    + _verdict(sub, _rows(sub))))
    return blocks
