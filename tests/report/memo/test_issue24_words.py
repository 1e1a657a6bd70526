"""Issue 24's words, on hand-made numbers and on the session memo: PRIM's chosen step
against the box reported, amounts rounded to their Monte Carlo error, owned GPUs said to
apply only to a company that has them, the comparison's columns named for what they rank."""

from __future__ import annotations

import numpy as np

from mc_tco.decision.boxes import Box, FoundBox, Step


def _box(lower, upper, n_in, wins_in, n=1000, wins=300):
    return Box(np.array(lower, float), np.array(upper, float)), n_in, wins_in, n, wins


def test_prim_says_plainly_what_dropping_restrictions_did():
    from mc_tco.report.words.prim import dropped_sentence

    inf = np.inf
    step_box, n_in, w_in, n, w = _box([0.1, 0.2, 0.3, -inf], [inf, inf, inf, 0.5], 390, 211)
    step = Step(step_box, n_in, w_in, n, w)  # 4 restrictions, density 54.1%, coverage 70%
    kept, k_in, kw_in, _, _ = _box([0.1, -inf, -inf, -inf], [inf] * 4, 700, 212)
    found = FoundBox(kept, ["a", "b", "c", "d"], k_in, kw_in, n, w, kw_in, {}, [step], 0)
    text = dropped_sentence(found)
    assert "is not the step marked *" in text
    assert "restricts 4 inputs (density 54.1%" in text and "leaves 1 (density 30.3%" in text
    assert "the dropped restrictions carried 44% of the step's density" in text
    same = FoundBox(step_box, ["a", "b", "c", "d"], n_in, w_in, n, w, w_in, {}, [step], 0)
    assert dropped_sentence(same) == "The box reported above is the step marked *."


def test_amounts_carry_no_more_digits_than_their_error():
    from mc_tco.report.fmt import to_error

    assert to_error(169323, 7260) == ("169,300", "7,300")
    assert to_error(836660027, 41e6) == ("837,000,000", "41,000,000")
    assert to_error(-18734.2, 512.0) == ("-18,730", "510")
    assert to_error(0.05591, 0.00034) == ("0.05591", "0.00034")


def test_owned_gpus_apply_only_to_a_company_that_has_idle_servers(compared_memo):
    out, _, ds, _ = compared_memo
    answer = (out / "memo.md").read_text().split("## The answer\n\n", 1)[1].split("\n\n")[0]
    assert "Already-owned GPUs apply only to a company that has idle 8×B300 servers" in answer
    med = float(ds["target_quantile"].sel(target="saving", quantile=0.5, strategy="owned",
                                          demand=5e11))
    want = ("Even with such servers on hand, self-hosting loses to the API in the median "
            "scenario at 500B" if med < 0 else
            "With such servers on hand, self-hosting beats the API in the median scenario")
    assert want in answer


def test_the_comparison_names_what_each_column_ranks(compared_memo):
    md = (compared_memo[0] / "memo.md").read_text()
    compare = md.split("## Compared with another book", 1)[1]
    header = next(line for line in compare.splitlines() if line.startswith("| rank |"))
    assert header.count(": ST of ") == 2  # each book's column says which target it ranks


def test_one_ranking_of_the_option_the_summary_names(compared_memo):
    """Issue 24, point 9: the tornado, the assumption table and the appendix's ranking
    explain the option the summary names, and no index that is not a share is called one."""
    from mc_tco.report.memo.context import VERB

    out, _, ds, _ = compared_memo
    md = (out / "memo.md").read_text()
    page = (out / "summary.md").read_text()
    p = {s: float(ds.p_positive.sel(target="saving>0", strategy=s, demand=5e11))
         for s in ("buy", "rent", "reserved", "hybrid")}
    best = max(p, key=p.get)
    if "**Recommendation: Keep paying the API**" in page:
        from mc_tco.report.memo.one_page import FIRST

        assert f"The best alternative, {FIRST[best]}, beats" in page
    assert f"What moves the saving of {VERB[best]} at 500B" in md
    assert f"for whether {VERB[best]} beats the API at 500B" in md or \
        f"for the monthly saving of {VERB[best]} at 500B" in md
    assert "share of the variance (ST)" not in md and "(share of variance)" not in md
    if ds.mc_tco.correlations:
        assert "by Shapley effects: each input's share of the variance" in md
