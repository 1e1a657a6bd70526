"""The family check's findings where the one-at-a-time variants were not evaluated (a point
off the report points): left out, and said, never read as NaN."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture(scope="module")
def checked_run(article_book):
    from mc_tco.engine import run

    return run(article_book, samples=64, family_check=True, shapley=False)


def test_rows_off_the_report_points_leave_the_unevaluated_variants_out(checked_run):
    from mc_tco.decision.family_findings import family_rows

    ds = checked_run
    labels = [str(v) for v in ds["family_variant"].values]
    singles = [v for v, i in zip(labels, ds["family_variant_input"].values, strict=True)
               if i not in ("", "all")]
    at, off = {"strategy": "buy", "demand": 1e12}, {"strategy": "buy", "demand": 1e13}
    (here,), (there,) = family_rows(ds, points=[at]), family_rows(ds, points=[off])
    assert here.not_evaluated == () and len(here.singles) == len(singles)
    assert list(there.not_evaluated) == singles and there.singles == ()
    assert there.most_moving is None and set(there.beyond_mc_error) <= {
        "all:uniform", "all:triangular", "all:pert"}
    p = ds["family_check_p_positive"].sel(target="saving>0", strategy="buy", demand=1e13)
    kept = p.sel(family_variant=["book", "all:uniform", "all:triangular", "all:pert"]).values
    assert (there.min, there.max) == (kept.min(), kept.max())
    assert np.isnan(p.sel(family_variant=singles).values).all()
