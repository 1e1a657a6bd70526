"""Issue 15 and issue 11 item 5-6 leftovers: what a reader of the memo's body sees (plain
labels, rounded shares, the decision's strategy), the run's interval level in every label,
and the claims evaluated at their own demands. Each test builds only the part it checks."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from mc_tco.report.memo import fmt


def test_one_money_format_with_digits():
    """memo.fmt has one money helper; ``digits`` chooses the significant digits."""
    assert not hasattr(fmt, "usd")
    assert fmt.money(-36512, "/month", digits=3) == "-$36.5k/month"
    assert fmt.money(16000, "/month", digits=3) == "$16k/month"
    assert fmt.money(488_123, " a year", digits=3) == "$488k a year"
    assert fmt.money(56.8, "/h", digits=3) == "$56.8/h"
    assert fmt.money(1_234_567, digits=3) == "$1.23M"
    assert fmt.money(670_123) == "$670k"
    assert fmt.money(999_700) == "$1M"
    assert fmt.money(-36_123) == "-$36k"
    assert fmt.money(950) == "$950"
    assert fmt.money(0) == "$0"
    assert fmt.money(float("nan")) == "n/a"


def _tied_ranking():
    import numpy as np
    import xarray as xr

    from mc_tco.decision.indices import Ranking

    names = ["a", "b", "c"]
    table = xr.Dataset(
        {"ST": ("input", [0.60, 0.59, 0.2]), "ST_conf": ("input", [0.05, 0.05, 0.01]),
         "S1": ("input", [0.1, 0.1, 0.1]), "S1_conf": ("input", [0.01, 0.01, 0.01]),
         "rank": ("input", [1, 2, 3]), "rank_best": ("input", [1, 1, 3]),
         "rank_worst": ("input", [2, 2, 3])},
        coords={"input": names})
    assert np.isfinite(table["ST"].values).all()
    return Ranking("saving>0", 5e11, "buy", 900, 8192, False, table)


def test_ranking_sentences_say_the_runs_level():
    """Issue 11 item 5 (review leftover): a tie names the run's level, not always 95%."""
    from mc_tco.report.memo.context import ranking_sentences

    text = " ".join(ranking_sentences(_tied_ranking(), 8192, "80%"))
    assert "2 inputs share the top" in text
    assert "(ST ± 80% half-width)" in text and "95%" not in text


def _family_row(point, book, flips=()):
    from mc_tco.decision.family_findings import FamilyRow

    alls = {"uniform": book + 0.2 if flips else book + 0.01, "triangular": book,
            "pert": book}
    vals = [book, *alls.values()]
    return FamilyRow(point, book, alls, (), min(vals), max(vals), "book", "all:uniform",
                     None, tuple(flips), tuple(flips))


def _family(decision: str, demand: float = 5e11):
    """Every strategy at ``demand``: the decision's does not flip, the others do."""
    from mc_tco.decision.family_findings import FamilyFindings

    rows = [_family_row({"strategy": s, "demand": demand}, 0.14 if s == decision else 0.42,
                        () if s == decision else ("all:uniform",))
            for s in ("buy", "rent", "owned", "hybrid")]
    rows.append(_family_row({"strategy": decision, "demand": 3e12}, 0.45, ("all:uniform",)))
    return FamilyFindings(("x",), (), 4, 1.0, "beats the API", tuple(rows), (),
                         {"demand": "tokens/month"})


def test_the_bold_flip_is_said_of_the_decisions_point_only():
    """Issue 15: 'the answer flips with the shape' in bold refers to the decision's
    strategy at the decision demand, never to another strategy or demand."""
    from mc_tco.report.words.family import family_markdown

    fs = _family("hybrid")
    md = family_markdown(fs, focus={"strategy": "hybrid", "demand": 5e11})
    assert "**" not in md.split("|")[0]
    assert ("At the decision, hybrid, 500B, the answer does not flip with the shape: P = "
            "14.0% as written and stays below 50% under every variant (from 14.0% to 15.0%)."
            ) in md
    assert ("Elsewhere the shape moves P across 50% at buy, 500B (42.0% as written; all "
            "uniform); rent, 500B") in md
    assert "hybrid, 3T (45.0% as written; all uniform): not the answer at the decision." in md
    # a flip at the decision is the bold sentence, and only it
    md = family_markdown(fs, focus={"strategy": "owned", "demand": 5e11})
    assert md.count("**The answer flips with the shape**") == 1
    assert "**The answer flips with the shape** at the decision, owned, 500B: P = 42.0%" in md
    # a decision demand the check did not run at is said, not guessed from the nearest
    md = family_markdown(fs, focus={"strategy": "hybrid", "demand": 8e11})
    assert ("The family check has no point at the decision (hybrid, 800B): it was run at "
            "500B, 3T only.") in md
    # without a focus (the CLI, a user's model) every flip is stated as before
    assert family_markdown(fs).count("**The answer flips with the shape**") == 4


def test_memo_family_appendix_focuses_on_the_decision(default_run, monkeypatch):
    """The memo passes its decision (strategy of the answer, decision demand) to the
    family check's words."""
    from mc_tco.report.memo.answer import decision_strategy
    from mc_tco.report.memo.sections import MemoContext, section_family
    from mc_tco.report.words import family as W

    ctx = MemoContext(default_run, 5e11)
    decision = decision_strategy(ctx)
    monkeypatch.setattr(W, "family_findings", lambda ds: _family(decision))
    text = " ".join(b.text for b in section_family(ctx).blocks if hasattr(b, "text"))
    assert "**" not in text
    assert f"At the decision, {decision}, 500B, the answer does not flip" in text


def _tiny_grid_book(tmp_path):
    """The article's book with ``values = [5e11]`` in [grid.demand] (issue 11 item 6)."""
    from mc_tco.book import loads_book
    from tests.paths import ARTICLE_BOOK

    text = ARTICLE_BOOK.read_text()
    text = re.sub(r"\[grid\.demand\]\n(.*\n)*?(?=\n\[)",
                  "[grid.demand]\nvalues = [5e11]\nunit = \"tokens/month\"\n", text, count=1)
    assert "values = [5e11]" in text and "num = 41" not in text
    return loads_book(text, str(tmp_path / "tiny.toml"))


def test_the_claims_demands_are_on_every_grid(tmp_path):
    """Issue 11 item 6: a coarse grid no longer moves 'a few hundred users' to the nearest
    grid point: the TCO model adds the claims' demands to every run's grid."""
    import numpy as np

    from mc_tco.engine import run
    from mc_tco.engine.plan import plan_run
    from mc_tco.models.tco import SPEC
    from mc_tco.report.memo.claims import CLAIM_DEMANDS, evaluate_claims

    assert sorted(SPEC.points["demand"]) == sorted(CLAIM_DEMANDS)
    book = _tiny_grid_book(tmp_path)
    grid = plan_run(book, samples=64).grid["demand"].values
    assert all(np.isclose(grid, d, rtol=1e-12).any() for d in CLAIM_DEMANDS)
    ds = run(book, samples=64, resamples=0)
    claims = {c.number: c for c in evaluate_claims(ds)}
    users = claims[3].parts[0]
    assert users.statement == "over 90% at 30B tokens/month (300 users)"
    assert users.p == float((ds["gpu_share"].sel(demand=3e10) > 0.9).mean())
    assert claims[3].verdict != "not evaluated"


def _claims_ds(demand):
    import numpy as np
    import xarray as xr

    n = 64
    per = (("sample", "demand"), np.full((n, len(demand)), 0.05))
    return xr.Dataset(
        {"breakeven_demand": (("sample", "strategy"), np.full((n, 4), np.inf)),
         "storage_to_gpu_ratio": per, "gpu_share": (per[0], 1 / (1 + per[1])),
         "storage_tb": per,
         "node_api_revenue_per_hour": ("sample", np.full(n, 30.0)),
         "rent_per_node_hour": ("sample", np.full(n, 56.8))},
        coords={"demand": np.asarray(demand, dtype=float),
                "strategy": ["api", "buy", "rent", "reserved"]},
        attrs={"conf_level": 0.95})


def test_a_results_file_without_a_claims_demand_gets_no_verdict():
    """An older results file whose grid lacks 30B: claims 3 and 4 are 'not evaluated', with
    the fix, instead of being read at the nearest grid point (100B)."""
    from mc_tco.report.memo.answer import claims_sentence
    from mc_tco.report.memo.claims import NOT_EVALUATED, evaluate_claims

    claims = {c.number: c for c in evaluate_claims(_claims_ds([1e9, 1e11, 5e11, 1e13]))}
    for k in (3, 4):
        assert claims[k].verdict == NOT_EVALUATED
        part = claims[k].parts[0]
        assert part.text().endswith(
            "at 30B tokens/month (300 users): **not evaluated**: the results' demand grid has "
            "no point at 30B tokens/month (an older run); rerun the book, which now adds it, "
            "or add include = [3e10] to its [grid.demand].")
        assert claims[k].parts[1].verdict == "holds"  # 500B is on the grid: read there
        assert not part.borderline
    assert claims[1].verdict == "holds" and claims[5].verdict == "holds"
    assert "claims 3 and 4 are not evaluated" in claims_sentence(list(claims.values()))
    assert ("claims 3 and 4 are not evaluated; none of the others fails outright"
            in claims_sentence([claims[k] for k in (1, 3, 4, 5)]))
    # on the grid, the same dataset gets its verdicts
    ok = {c.number: c.verdict for c in evaluate_claims(_claims_ds([1e9, 3e10, 5e11, 1e13]))}
    assert ok[3] == ok[4] == "holds"


def _text(section) -> str:
    """Every word a reader sees in a memo section: paragraphs, bullets, table cells and
    captions, figure titles and captions."""
    out = [section.title]
    for b in section.blocks:
        for attr in ("text", "title", "caption"):
            if isinstance(getattr(b, attr, None), str):
                out.append(getattr(b, attr))
        for item in getattr(b, "items", []):
            out.append(item)
        for row in [getattr(b, "header", []), *getattr(b, "rows", [])]:
            for cell in row:
                out.extend(cell if isinstance(cell, list) else [cell])
    return "\n".join(out)


@pytest.fixture(scope="module")
def compared_ctx(default_run, article_run):
    from mc_tco.report.memo.context import MemoContext

    return MemoContext(default_run, 5e11, compare=article_run)


#: a percentage of 1% or more with decimals; below 1% a share that is not a probability
#: keeps one decimal (fmt.share_of: the SSDs' 0.2% of the GPUs), a probability never does
#: (fmt.prob: 'below 1%')
FULL_PRECISION = re.compile(r"(?<![\d.])[1-9]\d*\.\d+%")


def _no_png(monkeypatch):
    """Figures are built but not rendered (rendering is most of a section's time)."""
    from mc_tco.report.memo import figures

    monkeypatch.setattr(figures, "to_png", lambda fig, dpi=None: b"")


def test_claims_and_comparison_round_shares_for_the_body(compared_ctx, monkeypatch):
    """Issue 15 rounding rules: the body's claims and comparison give probabilities to
    the nearest percent (intervals only where they change the reading); full precision is
    in the CSV files."""
    from mc_tco.report.memo.evidence import section_claims, section_compare

    _no_png(monkeypatch)

    for section in (section_claims(compared_ctx), section_compare(compared_ctx)):
        text = _text(section)
        assert not FULL_PRECISION.findall(text), (section.title, FULL_PRECISION.findall(text))
    from mc_tco.report.memo.claims import Part

    claim1 = compared_ctx.claims[0].parts[0]
    assert claim1.text().startswith(
        f"Renting on demand never breaks even (*substance*): true in {fmt.prob(claim1.p)}")
    # version 3: reserving is claim 1's second part, not its substance
    reserved = compared_ctx.claims[0].parts[1]
    assert reserved.statement == "reserving for 12 months never breaks even"
    assert not reserved.substantive
    # the interval is shown where it changes the reading: across a verdict's threshold
    assert Part("x", 0.7931, 0.790, 0.796, 6497, 8192).text() == (
        "X: true in 79% of scenarios: **holds only in part**.")
    assert Part("x", 0.91, 0.88, 0.93, 910, 1000).text() == (
        "X: true in 91% (88-93%) of scenarios: **holds** (borderline).")


def test_prob_ci_shows_an_interval_only_where_it_changes_the_reading():
    assert fmt.prob_ci(0.7931, 0.790, 0.794) == "79%"
    assert fmt.prob_ci(0.16, 0.15, 0.17, 0.8) == "16% (80% MC interval 15-17%)"
    assert fmt.prob_ci(0.16, 0.15, 0.17, short=True) == "16% (15-17%)"
    assert fmt.prob_ci(0.004, 0.001, 0.012, short=True) == "below 1%"
    assert fmt.prob_ci(0.004, 0.001, 0.022, short=True) == "below 1% (<1-2%)"
    assert fmt.share_of(0.9167) == "92%" and fmt.share_of(1.636) == "164%"
    assert fmt.share_of(0.004) == "0.4%" and fmt.share_of(0) == "0%"


def _raw_names(ds) -> list[str]:
    """The inputs' variable names that a reader would see as code (with an underscore)."""
    return [str(n) for n in ds["input"].values if "_" in str(n)]


def test_body_and_figures_use_plain_labels(compared_ctx, monkeypatch):
    """Issue 15: the assumptions table, the comparison, the tornado caption and the
    Sobol' heat map say what an input means; only the appendix's table adds the variable
    name (in code, after the plain label) for traceability."""
    from mc_tco.report.memo import figures
    from mc_tco.report.memo.drivers import section_drivers, section_sobol
    from mc_tco.report.memo.evidence import section_assumptions, section_compare
    from mc_tco.report.memo.labels import plain

    drawn = {}

    def keep(fig, dpi=None):
        drawn[len(drawn)] = fig
        return b""

    monkeypatch.setattr(figures, "to_png", keep)
    raw = _raw_names(compared_ctx.ds)
    assumptions = section_assumptions(compared_ctx)
    table = assumptions.blocks[1]
    # issue 24: the assumption table shows each input's book key beside its plain label,
    # so that a reader finds the [inputs.<key>] to edit
    top = compared_ctx.ranking.table["input"].values[0].item()
    assert table.rows[0][0].removeprefix("**⚑** ") == f"{plain(top)} (`{top}`)"
    for row in table.rows:
        row[7] = ""  # the book's own source text may quote a variable name
        label, _, key = row[0].removeprefix("**⚑** ").rpartition(" (`")
        assert key.endswith("`)") and label == plain(key[:-2])
        row[0] = ""
    for section in (assumptions, section_compare(compared_ctx),
                    section_drivers(compared_ctx)):
        text = _text(section)
        assert not [n for n in raw if n in text], section.title
    drawn.clear()
    appendix = section_sobol(compared_ctx)
    tables = [b for b in appendix.blocks if hasattr(b, "rows")]
    for table in tables:  # the Shapley ranking (correlated book), then the ST table
        col = table.header.index("input")
        for row in table.rows:
            name = re.search(r"`([a-z0-9_]+)`", row[col]).group(1)
            assert row[col] == f"{plain(name)} (`{name}`)"
    heatmap = drawn[0]
    ticks = [t.get_text() for t in heatmap.axes[1].get_yticklabels()]
    # the heat map shows the ranking's top inputs (issue 24), each by its plain label
    top = [str(v) for v in compared_ctx.ranking.table["input"].values[:15]]
    assert sorted(ticks) == sorted(plain(n) for n in top)
    assert not [t for t in ticks if t in raw]
    assert "'buying beats the API'" in heatmap.axes[2].get_title()


@pytest.mark.parametrize("top", ["api", "buy"])
def test_answer_names_the_rules_option_and_no_bare_it(default_run, monkeypatch, top):
    """'No option is cheapest in most scenarios. ... It, buying, beats the API' had no
    antecedent for 'It'. The answer now names the option of the one rule (the largest
    expected NPV against the API) in its first words, whichever it is."""
    from mc_tco.decision import rule
    from mc_tco.report.memo import answer
    from mc_tco.report.memo.context import MemoContext

    real = rule.decide(default_run, 5e11)
    if top == "api":  # every alternative expected to lose
        o = {s: replace(v, mean=-abs(v.mean) - 1.0) for s, v in real.outcomes.items()}
        fake = replace(real, choice="api", outcomes=o)
    else:
        fake = replace(real, choice="buy", best_self="buy")
    monkeypatch.setattr(answer, "decide", lambda ds, d: fake)
    text = answer.answer_paragraph(MemoContext(default_run, 5e11))
    assert text.startswith(f"**{answer.ACTION[top]}.**")
    assert " It," not in text and " It " not in text
    assert ("no alternative has a positive expected NPV" in text) == (top == "api")
    assert "Scenario by scenario, the cheapest is" in text
