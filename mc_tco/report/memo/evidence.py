"""The evidence around the answer: the article's claims, the assumptions and the comparison
with another book."""

from __future__ import annotations

import xarray as xr

from mc_tco.decision.at_demand import ranking_demand
from mc_tco.decision.breakeven import breakeven_cdf, cdf_demands
from mc_tco.decision.indices import ranking
from mc_tco.decision.tco_data import STRATEGIES, grid_point, nearest_point
from mc_tco.report.fmt import fmt_value
from mc_tco.report.memo import figures as F
from mc_tco.report.memo import figures_drivers as FD
from mc_tco.report.memo.answer import (
    nonmonotone_note,
)
from mc_tco.report.memo.claims import ARTICLE_BAND, BREAKEVEN_SCALE, RULES
from mc_tco.report.memo.context import (
    TOP_FIVE,
    VERB,
    MemoContext,
    _name,
    _st,
    _target_words,
)
from mc_tco.report.memo.fmt import and_list, prob, prob_ci, tokens, users
from mc_tco.report.memo.labels import plain
from mc_tco.report.memo.render import Block, Figure, Paragraph, Section, Table
from mc_tco.results.points import point_index


def section_claims(ctx: MemoContext) -> Section:
    """The claims section: each of the article's claims, its verdict and evidence."""
    rows = []
    for c in ctx.claims:
        cell = [f"Read as: {c.reading}", *(p.text() for p in c.parts), *c.evidence]
        rows.append([str(c.number), f"\"{c.quote}\"", cell, f"**{c.verdict}**"])
    blocks: list[Block] = [
        Table(["#", "the article says", "what this book's scenarios say (share of scenarios "
               f"where it is true; in brackets its {ctx.level} Monte Carlo interval where it "
               "crosses a verdict's threshold; full precision in claims.csv)", "verdict"],
              rows, "rlll"),
        Paragraph("How the verdicts are decided: " + RULES.format(level=ctx.level)),
        Paragraph(
            "\"A few hundred users\" is 300 heavy users at 100M tokens a month (30B "
            "tokens/month); \"break-even scale\" is 500B tokens/month, the top of the "
            "article's break-even band. Both are read at exactly that demand, which every "
            "run adds to its demand grid."
        ),
        Paragraph(heavy_user_note()),
    ]
    note = nonmonotone_note(ctx.ds, nearest_grid(ctx.ds, BREAKEVEN_SCALE), "buy")
    if note:
        blocks.append(Paragraph(note))
    return Section("The article's claims", blocks, "claims")


#: the article's own mapping of its break-even band to heavy users
ARTICLE_USERS = (2000, 4000)
#: the strategies the comparison figure draws for both books
COMPARED = ("buy", "reserved", "owned", "hybrid")


def heavy_user_note() -> str:
    """The article's "300-500B tokens/month <-> 2,000-4,000 heavy users", stated as the
    article's, with the correction at its own 100M tokens per user."""
    return (f"The article maps its break-even band, {tokens(ARTICLE_BAND[0])}-"
            f"{tokens(ARTICLE_BAND[1])} tokens/month, to {ARTICLE_USERS[0]:,}-"
            f"{ARTICLE_USERS[1]:,} heavy users; at its own 100M tokens per heavy user a month "
            f"that band is {users(ARTICLE_BAND[0], '')}-{users(ARTICLE_BAND[1], 'users')}, "
            "which is what this memo uses wherever it converts tokens to users.")


def nearest_grid(ds: xr.Dataset, demand: float) -> float:
    """The grid demand nearest to ``demand``."""
    return nearest_point(ds, demand)


def section_assumptions(ctx: MemoContext) -> Section:
    """The assumptions appendix: every input, its distribution, source and rank."""
    book, r = ctx.book, ctx.ranking
    t = r.table
    idx = r.index if r.index in t else "ST"
    rank = {str(i): int(v) for i, v in zip(t["input"].values, t["rank"].values, strict=True)}
    rows, flagged = [], []
    order = sorted(book.inputs.values(),
                   key=lambda i: (rank.get(i.name, 10**6), list(book.inputs).index(i.name)))
    for inp in order:
        q05, q50, q95 = (float(v) for v in inp.quantiles([0.05, 0.5, 0.95]))
        if inp.name in rank:
            row = t.sel(input=inp.name)
            st = (f"{rank[inp.name]} ({float(row[idx]):.3f} ± "
                  f"{float(row[f'{idx}_conf']):.3f})")
        else:
            st = "grid (fixed here)" if inp.is_grid else "constant"
        flag = inp.is_assumption and rank.get(inp.name, 10**6) <= TOP_FIVE
        if flag:
            flagged.append(inp.name)
        rows.append([
            ("**⚑** " if flag else "") + f"{plain(inp.name)} (`{inp.name}`)",
            inp.group or "-",
            inp.describe(),
            *(fmt_value(v) for v in (q05, q50, q95)),
            inp.unit or "-",
            inp.source or "(no source)",
            st,
        ])
    words = _target_words(r)
    label, what = (("Shapley", "Shapley effect (its share of the variance, the book's "
                    "correlations included)") if idx == "shapley" else
                   ("ST", "total Sobol' index ST"))
    intro = (
        f"Every input of the book `{ctx.ds.mc_tco.run.book_path}`, ordered by its {what} "
        f"for {words} at {tokens(r.demand)} (rank, then {label} ± {ctx.level} "
        f"half-width), the ranking the run prints. **⚑** marks an input that is both in the "
        f"top {TOP_FIVE} and sourced "
        "only by an assumption (its source begins with 'assumption'): important and weakly "
        "sourced, the first to pin down. Each input's book key is in brackets: the "
        "`[inputs.<key>]` table to edit in the book (also in assumptions.csv)."
    )
    if flagged:
        tail = f"Flagged: {'; '.join(plain(x) for x in flagged)}."
    else:
        tail = f"No input in the top {TOP_FIVE} rests on an assumption alone."
    return Section("The assumptions", [
        Paragraph(intro + " " + tail),
        Table(["input", "group", "distribution", "5%", "50%", "95%", "unit", "source",
               f"{label} rank"], rows, "lllrrrlll"),
    ], "assumptions")


def _compare_word(a: tuple, b: tuple) -> str:
    """'higher here' / 'lower here' when the intervals are disjoint, else no difference."""
    (_, la, ha), (_, lb, hb) = a, b
    if la > hb:
        return "higher here"
    if ha < lb:
        return "lower here"
    return "no difference that this sample can tell (the intervals overlap)"



def _listed(names: list[str]) -> str:
    """Inputs in plain words for the body: 'yearly growth of demand; cost of capital'."""
    return "; ".join(plain(x) for x in names)


def section_compare(ctx: MemoContext) -> Section | None:
    """The comparison with a second book's results (None without ``--compare``)."""
    if ctx.compared is None:
        return None
    ds, other, d, s = ctx.ds, ctx.compared, ctx.demand, ctx.strategy
    book, obook = ctx.book, ctx.compare_book
    assert obook is not None  # set with ctx.compared
    mine = {i.name for i in book.uncertain}
    theirs = {i.name for i in obook.uncertain}
    added = [i.name for i in book.uncertain if i.name not in theirs]
    dropped = [i.name for i in obook.uncertain if i.name not in mine]
    changed = [n for n in mine & theirs
               if book.inputs[n].describe() != obook.inputs[n].describe()]
    name, oname = _name(ds), _name(other)
    if name == oname:  # two runs of one book (a copy): tell them apart by file
        name = f"{name} (`{ctx.paths.get('results') or ds.mc_tco.run.book_path}`)"
        oname = f"{oname} (`{ctx.paths.get('compare') or other.mc_tco.run.book_path}`)"
    d_other = grid_point(other, d, "--demand (in the --compare results)")
    p_me = ctx.p(s, d)[:3]
    p_ot = ctx.p(s, d_other, other)[:3]
    lo, hi = ds["breakeven_demand_p_never_ci"].sel(strategy=s).values
    never_me = (float(ds["breakeven_demand_p_never"].sel(strategy=s)), lo, hi)
    lo, hi = other["breakeven_demand_p_never_ci"].sel(strategy=s).values
    never_ot = (float(other["breakeven_demand_p_never"].sel(strategy=s)), lo, hi)
    text = [
        f"This book (**{name}**) is set beside **{oname}** "
        f"(`{other.mc_tco.run.book_path}`). It makes {len(added)} input"
        f"{'s' if len(added) != 1 else ''} uncertain that the other fixes"
        + (f" ({_listed(added)})" if added else "")
        + (f", fixes {len(dropped)} that the other leaves uncertain "
           f"({_listed(dropped)})" if dropped else "")
        + (f", and gives {len(changed)} shared input{'s' if len(changed) != 1 else ''} "
           f"other distributions ({_listed(sorted(changed))})"
           if changed else "") + ".",
        f"What that changes: at {tokens(d)}, {VERB[s]} beats the API in "
        f"{prob_ci(*p_me, ctx.conf)} of this book's scenarios against "
        f"{prob_ci(*p_ot, ctx.conf)} of the other's: {_compare_word(p_me, p_ot)}. It "
        f"never breaks even in {prob_ci(*never_me, ctx.conf)} here against "
        f"{prob_ci(*never_ot, ctx.conf)} there: {_compare_word(never_me, never_ot)}.",
    ]
    grid_o = other["demand"].values
    shared = [x for x in ctx.report_demands if point_index(grid_o, x) is not None]
    if shared and shared[-1] != d:  # the largest report demand shows where the books part
        far = shared[-1]
        p_far, p_far_ot = ctx.p(s, far)[:3], ctx.p(s, far, other)[:3]
        text.append(
            f"At {tokens(far)}, {VERB[s]} beats the API in {prob_ci(*p_far, ctx.conf)} here "
            f"against {prob_ci(*p_far_ot, ctx.conf)} there: {_compare_word(p_far, p_far_ot)}."
        )
    r_me = ctx.ranking
    r_ot = ranking(other, ranking_demand(other, d_other), s)
    top_me = [str(v) for v in r_me.table["input"].values[:TOP_FIVE]]
    new_top = [x for x in top_me if x not in theirs]
    if r_me.target == r_ot.target:
        if new_top:
            lead = ("the most influential input is one the other book does not vary"
                    if top_me[0] in new_top else
                    "the most influential input is still one both books vary")
            text.append(
                f"Of this book's top {TOP_FIVE} inputs for {_target_words(r_me)} at "
                f"{tokens(d)}, {len(new_top)} ({_listed(new_top)}) "
                f"{'are' if len(new_top) > 1 else 'is'} fixed in the other book; {lead}."
            )
        else:
            text.append(f"This book's top {TOP_FIVE} inputs are all uncertain in the other "
                        "book too.")
    else:
        text.append(f"The two rankings below rank different targets ({_target_words(r_me)} "
                    f"here, {_target_words(r_ot)} there), by the rule of the section above.")
    blocks: list[Block] = [Paragraph(" ".join(text))]
    rows = []
    for strat in STRATEGIES:
        for label, dd in ((name, ds), (oname, other)):
            cells = []
            for x in shared:
                p, lo, hi, _ = ctx.p(strat, x, dd)
                cells.append(prob_ci(p, lo, hi, short=True))
            rows.append([strat, label, *cells])
    blocks.append(Table(["strategy", "book", *[tokens(x) for x in shared]], rows,
                        "ll" + "r" * len(shared),
                        caption=f"P(strategy beats the API); in brackets its {ctx.level} Monte "
                                "Carlo interval where that changes the rounded share (full "
                                "precision in p_beats_api.csv)."))

    rows = []
    for strat in STRATEGIES:
        for label, dd in ((name, ds), (oname, other)):
            q = dd["breakeven_demand_quantile"].sel(strategy=strat)
            pn = float(dd["breakeven_demand_p_never"].sel(strategy=strat))
            rows.append([strat, label, *(tokens(float(q.sel(quantile=v)))
                                         for v in (0.05, 0.25, 0.5, 0.75, 0.95)), prob(pn)])
    blocks.append(Table(["strategy", "book", "5%", "25%", "median", "75%", "95%", "never"],
                        rows, "llrrrrrr",
                        caption="Break-even demand (tokens/month) quantiles per book."))

    rows = []
    ot_names = [str(v) for v in r_ot.table["input"].values]
    unranked = []
    for i in range(TOP_FIVE):
        cells = [str(i + 1)]
        for r, names in ((r_me, top_me), (r_ot, ot_names)):
            if not r.ranked:  # noise without an interval (e.g. ST 1.08 ± nan): not shown
                cells.append("not ranked (below)" if i == 0 else "-")
            elif i < len(names):
                cells.append(f"{plain(names[i])} ({_st(r.table, names[i])})")
            else:
                cells.append("-")
        rows.append(cells)
    for label, r in ((name, r_me), (oname, r_ot)):
        if not r.ranked:
            unranked.append(
                f" {label}: not ranked, {_target_words(r)} is not 0 in only "
                f"{r.unranked_varied:,} of {r.n:,} scenarios at {tokens(r.demand)}, too few "
                "for its indices to have a Monte Carlo interval (they are noise there).")
    heads = [f"{label}: ST of {_target_words(r)}" for label, r in ((name, r_me),
                                                                  (oname, r_ot))]
    blocks.append(Table(["rank", *heads], rows, "rll",
                        caption=f"Top inputs at {tokens(r_me.demand)} (ST ± {ctx.level} "
                                "half-width), for "
                        + (_target_words(r_me) if r_me.target == r_ot.target else
                           f"{_target_words(r_me)} here and {_target_words(r_ot)} there")
                        + "." + "".join(unranked)))

    books = []
    for label, dd in ((name, ds), (oname, other)):
        books.append((label, dd["p_positive"].sel(target="saving>0"),
                      dd["p_positive_ci"].sel(target="saving>0"),
                      breakeven_cdf(dd, cdf_demands(dd), conf_level=ctx.conf)))
    blocks.append(Figure(
        "compare", F.png(FD.compare_figure(books, COMPARED, band=ARTICLE_BAND)),
        "The two books side by side",
        f"Left: P(beats the API) of {and_list([VERB[s] for s in COMPARED])} under both books "
        f"(solid: {name}; dashed: {oname}). Right: the distribution of buying's break-even "
        "demand."
    ))
    return Section("Compared with another book", blocks, "compare")
