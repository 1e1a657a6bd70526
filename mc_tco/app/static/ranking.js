// mc-tco explorer: the ranking's stages (issue 26). For a book ranked by Shapley effects
// the server estimates them at the slider's demand alone (mc_tco/app/runs.py): first from a
// quarter of the CLI's permutations (labelled a first estimate, its wider intervals drawn),
// then from the CLI's own, the numbers `mc-tco run --samples N --seed S` gives there. Uses
// app.js's state and requests (S, api, waitNote) and charts.js's drawing, when called.
"use strict";

// The ranking at demand d of the run `key`: a first estimate (a ranking by Shapley effects
// from a quarter of the CLI's permutations, its wider intervals drawn), then the CLI's own
// (mc_tco/app/runs.py). `gone()`: a newer change or demand replaced it. Returns the last
// stage's response, or null when gone.
async function rankAt(d, key, gone) {
  const body = { text: S.text, path: S.base.path, samples: S.samples, seed: S.seed, session: SESSION, demand: d, stage: "full" };
  let r = await waitNote(api("/api/run", { ...body, rough: true }), S.runSeq, "the ranking");
  if (gone()) return null;
  const rough = r.answer.ranking && Object.values(r.answer.ranking).some((x) => x.rough);
  S.refining = rough ? key + "|" + d : null;
  showRanking(r);
  if (!rough) return r;
  r = await waitNote(api("/api/run", body), S.runSeq, "the ranking at the CLI's permutations");
  if (gone()) return null;
  S.refining = null;
  showRanking(r);
  return r;
}

// A ranking stage's response (the break-even demands arrive beside it): the ranking at
// the demand of its request.
function showRanking(res) {
  if (res.answer.ranking) S.ranking = { ...res.answer, key: runKey() };
  if (res.answer.demand === S.results.grid[S.demandIndex]) S.rankPending = null;
  renderAnswer();
  $("card-rank").dataset.rough = S.refining ? "1" : "";
  document.body.dataset.answers = String((+document.body.dataset.answers || 0) + 1);
  if (res.answer.demand !== S.results.grid[S.demandIndex]) updateAnswer();
}

// A ranking by Shapley effects estimated at another demand (the run estimates them at the
// page's demand only, mc_tco/app/runs.py): shown for the nearest one, labelled and stale,
// while the run adds this demand's.
async function rankHere() {
  const d = S.results.grid[S.demandIndex], key = runKey();
  const rk = S.ranking && S.ranking.key === key && S.ranking.ranking && Object.values(S.ranking.ranking)[0];
  if (!rk || rk.index !== "shapley" || rk.at == null || Math.abs(rk.at / d - 1) <= 1e-9) return;
  S.rankPending = d; markStale("recomputing…", ["full"]); renderRanking();
  try {
    await rankAt(d, key, () => runKey() !== key || S.results.grid[S.demandIndex] !== d);
  } catch (e) { if (e.status !== 409) showGlobalError(e.message); }
}
