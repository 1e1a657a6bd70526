// mc-tco explorer: plain JavaScript, no library, nothing fetched from outside this server.
// State lives in this tab only (the server is stateless but for a cache of runs), so two
// tabs never share edits, runs or pins. The figures are charts.js, the editor editor.js
// (both loaded before this file).
//
// A change is answered in stages (mc_tco/app/runs.py): /api/preview checks it and answers
// from the base rows (the sentence, the table, P and the fan chart), then /api/run stage
// "base" adds the break-even demands and stage "full" the ranking (for a book ranked by
// Shapley effects: a first estimate at a quarter of the CLI's permutations, labelled so,
// then the CLI's own, at the slider's demand). Until
// its part arrives, each card shows the previous answer dimmed and labelled
// "recomputing…"; an invalid change labels them "not computed: fix …".
"use strict";

const TOKEN = document.querySelector('meta[name="mc-tco-token"]').content;
const SESSION = Math.random().toString(36).slice(2) + Date.now().toString(36);
// the memo's colours (mc_tco/report/memo/figures.py COLORS): reserved orange beside rent's red
const COLORS = { buy: "#1f77b4", rent: "#d62728", reserved: "#ff7f0e", owned: "#2ca02c", hybrid: "#9467bd" };
const PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf"];
const SVGNS = "http://www.w3.org/2000/svg";

const S = {
  base: null,        // {text, path}: the book as loaded or last saved
  text: null,        // the checked text currently run (base + edits)
  edits: {},         // {input: {dist, fields}}
  inputs: {},        // {input: input json as loaded}
  families: {},
  samples: 1024, seed: 0, defaultSamples: 8192,
  results: null, answer: null, ranking: null, pinned: null, dirty: false,
  demandIndex: 0, rankPending: null, refining: null, runSeq: 0, checkSeq: 0, targetSeq: 0, job: null,
};

const $ = (id) => document.getElementById(id);

async function api(path, body) {
  const opts = { headers: { "X-Mc-Tco-Token": TOKEN } };
  if (body !== undefined) {
    opts.method = "POST";
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const r = await fetch(path, opts);
  const data = await r.json();
  if (!r.ok) { const e = new Error(data.error || r.statusText); e.data = data; e.status = r.status; throw e; }
  return data;
}

function color(s, i) { return COLORS[s] || PALETTE[i % PALETTE.length]; }

// ------------------------------------------------------------------ formatting
// fmt:begin -- mc_tco/report/fmt.py's tokens, money(x, digits=3) and pct, for what the browser
// draws itself (axis ticks, table cells); tests/fmt_cases.json holds the cases both meet.
function fixed(x, d) {  // Python's f"{x:.{d}f}": an exact tie goes to the even digit
  const t = x.toFixed(d), long = Math.abs(x).toFixed(Math.min(100, d + 40));
  const cut = long.indexOf(".") + (d > 0 ? 1 + d : 0);
  if (!/^\.?50*$/.test(long.slice(cut))) return t;
  const lower = long.slice(0, cut).replace(/\.$/, "");
  return +lower.slice(-1) % 2 === 0 ? (x < 0 ? "-" : "") + lower : t;
}
function sig(a, digits) {  // a >= 0 rounded to `digits` significant digits
  if (a === 0) return 0;
  const d = digits - 1 - Math.floor(Math.log10(a));
  if (d >= 0) return +fixed(a, d);
  const p = 10 ** -d, r = a % p;
  let n = Math.round((a - r) / p) + (r * 2 > p ? 1 : 0);
  if (r * 2 === p && n % 2 === 1) n += 1;
  return n * p;
}
function digitsText(v, digits) {
  const t = fixed(v, Math.max(0, digits - 1 - Math.floor(Math.log10(v))));
  return t.includes(".") ? t.replace(/0+$/, "").replace(/\.$/, "") : t;
}
function scaled(a, digits) {
  a = sig(a, digits);
  if (a === 0) return "0";
  if (a >= 1e15) return Math.round(a / 1e12).toLocaleString("en") + "T";
  for (const [v, s] of [[1e12, "T"], [1e9, "B"], [1e6, "M"], [1e3, "k"]]) if (a >= v) return digitsText(a / v, digits) + s;
  return a >= 10 ** (digits - 1) ? Math.round(a).toLocaleString("en") : digitsText(a, digits);
}
function fmtTokens(d) {
  if (d === null || d === undefined || Number.isNaN(d)) return "n/a";
  if (!Number.isFinite(d)) return "never";
  return (d < 0 ? "-" : "") + scaled(Math.abs(d), 3);
}
function fmtUsd(x) {
  if (x === null || x === undefined || !Number.isFinite(x)) return "n/a";
  return (x < 0 ? "-" : "") + "$" + scaled(Math.abs(x), 3);
}
function fmtPct(p) {
  if (p === null || p === undefined || Number.isNaN(p)) return "n/a";
  if (p === 0) return "0%";
  if (p === 1) return "100%";
  const v = sig(100 * Math.abs(p), 2);
  const d = v === 0 || v >= 1 ? 1 : Math.min(4, Math.max(1, 1 - Math.floor(Math.log10(v))));
  return fixed(100 * p, d) + "%";
}
// fmt:end
function fmtNum(x) { return typeof x === "number" ? String(+x.toPrecision(6)) : String(x); }
function fmtNum(x) { return typeof x === "number" ? String(+x.toPrecision(6)) : String(x); }
function escapeHtml(s) { return String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]); }
function showGlobalError(msg) { const g = $("global-error"); g.hidden = !msg; g.textContent = msg || ""; }
function setStatus(text, busy) { const s = $("status"); s.textContent = text; s.classList.toggle("busy", !!busy); }

// ------------------------------------------------------------------ staleness
// The parts of the answer, each current or stale (dimmed, labelled) on its own.
const PARTS = { answer: ["answer-card", "card-p", "card-fan"], base: ["card-be"], full: ["card-rank"] };
function markStale(label, parts) {
  for (const part of parts || Object.keys(PARTS)) for (const id of PARTS[part]) $(id).dataset.stale = label;
  document.body.dataset.state = label.startsWith("not computed") ? "invalid" : "recomputing";
}
function markCurrent(part) {
  for (const id of PARTS[part]) delete $(id).dataset.stale;
  if (!document.querySelector("[data-stale]")) document.body.dataset.state = "current";
}
function pictureStale(name, label) {
  const card = document.querySelector(`.input[data-input="${CSS.escape(name)}"] .picture`);
  if (!card) return;
  if (label) card.dataset.stale = label; else delete card.dataset.stale;
}

// ------------------------------------------------------------------ edits -> runs
let checkTimer = null;
function onEdit(name) {
  const card = document.querySelector(`.input[data-input="${CSS.escape(name)}"]`);
  const choice = card.querySelector("select.family").value;
  const fields = {};
  card.querySelectorAll("input[data-field]").forEach((e) => { fields[e.dataset.field] = e.value; });
  S.edits[name] = { dist: choice.split("|")[0], fields };
  S.dirty = true;
  card.classList.add("changed");
  markStale("recomputing…");
  pictureStale(name, "recomputing…");
  // at once, before the browser draws the dimmed parts: one input event is one change (a
  // pasted number too), and an answer superseded by the next key is dropped (runSeq)
  refresh();
}

function seedError() {
  const raw = $("seed").value.trim();
  return /^\d+$/.test(raw) ? null : `seed ${raw || "(empty)"}: must be a whole number >= 0, e.g. 0`;
}

function showSeedError() {
  const bad = seedError();
  $("seed").classList.toggle("bad", !!bad);
  $("seed-error").hidden = !bad; $("seed-error").textContent = bad || "";
  return bad;
}

function clearErrors() {
  document.querySelectorAll(".input .error").forEach((e) => { e.hidden = true; e.textContent = ""; });
  document.querySelectorAll(".input.invalid").forEach((e) => e.classList.remove("invalid"));
  document.querySelectorAll(".fields input.bad").forEach((e) => e.classList.remove("bad"));
  document.querySelectorAll(".picture[data-stale]").forEach((e) => { delete e.dataset.stale; });
  showGlobalError(null);
}

function showInvalid(err) {
  const card = err.input && document.querySelector(`.input[data-input="${CSS.escape(err.input)}"]`);
  const where = err.input ? err.input + (err.field ? "." + err.field : "") : "the book";
  const label = `not computed: fix ${where}`;
  if (card) {
    card.classList.add("invalid");
    const box = card.querySelector(".error"); box.hidden = false; box.textContent = err.message;
    badFields(card, err).forEach((f) => f.classList.add("bad"));
    pictureStale(err.input, label);
  } else showGlobalError(err.message);
  markStale(label);
  setStatus("not run: fix the value marked in red", false);
}

// A change, a new seed or sample size, a loaded book: check and answer, then the rest.
async function refresh() {
  const seq = ++S.runSeq;
  S.rankPending = null; S.refining = null;
  clearTimeout(checkTimer);
  if (showSeedError()) { markStale("not computed: fix the seed"); setStatus("not run: fix the seed", false); return; }
  S.seed = +$("seed").value.trim();
  markStale("recomputing…");
  setStatus(`checking and running ${S.samples.toLocaleString("en")} base rows…`, true);
  const demand = S.results ? S.results.grid[S.demandIndex] : null;
  const body = { text: S.base.text, path: S.base.path, edits: S.edits, samples: S.samples, seed: S.seed, session: SESSION, demand };
  let res;
  try {
    res = await waitNote(api("/api/preview", body), seq, "the answer");
  } catch (e) {
    if (e.status === 409 || seq !== S.runSeq) return;
    clearErrors(); markStale("not computed: " + e.message.slice(0, 80)); setStatus("run failed", false); showGlobalError(e.message);
    return;
  }
  if (seq !== S.runSeq) return;
  clearErrors();
  if (!res.ok) { showInvalid(res.error); return; }
  for (const [name, inp] of Object.entries(res.inputs)) {
    const card = document.querySelector(`.input[data-input="${CSS.escape(name)}"]`);
    if (card) pdfPicture(card.querySelector("svg.pdf"), inp.pdf);
  }
  S.text = res.text;
  S.dirty = res.text !== S.base.text;
  $("unsaved").hidden = !S.dirty;
  if (!S.dirty) document.querySelectorAll(".input.changed").forEach((c) => c.classList.remove("changed"));
  show(res, "answer");
  // then the break-even demands (the answer's last part), then the ranking (ranking.js:
  // for a book ranked by Shapley effects a first estimate, then the CLI's permutations);
  // run side by side or ranking first they came later on the loaded 2-core machine
  const d = S.results.grid[S.demandIndex], key = runKey(), gone = () => seq !== S.runSeq;
  let ranked;
  try {
    const r = await waitNote(api("/api/run", { text: S.text, path: S.base.path, samples: S.samples, seed: S.seed, session: SESSION, demand: d, stage: "base" }), seq, "the break-even demands");
    if (gone()) return;
    show(r, "base");
    ranked = await rankAt(d, key, gone);
  } catch (e) {
    if (e.status === 409 || gone()) return;
    setStatus("run failed", false); showGlobalError(e.message); return;
  }
  if (gone() || !ranked) return;
  const r = ranked.results, took = r.cached ? "cached" : `${r.elapsed} s`;
  setStatus(`${r.n.toLocaleString("en")} samples, seed ${r.seed}, ${took}` + (r.note ? "; " + r.note : ""), false);
  document.body.dataset.runs = String((+document.body.dataset.runs || 0) + 1);
}

// Show a stage's results: the answer's parts (sentence, tables, P and the fan), then the
// break-even demands, then the ranking; the parts not yet computed stay stale.
function runKey() { return `${S.samples}|${S.seed}|${S.text}`; }
function show(res, stage) {
  const old = S.results;
  // a later stage answers at the demand of its request: the slider may have moved since
  const keep = stage !== "answer" && old ? old.grid[S.demandIndex] : null;
  S.results = res.results;
  if (!S.results.breakeven && old && old.breakeven && stage === "answer") S.results.breakeven = old.breakeven;  // drawn stale
  const i = S.results.grid.indexOf(keep ?? res.answer.demand);
  S.demandIndex = i >= 0 ? i : 0;
  const moved = keep !== null && keep !== res.answer.demand;
  if (!moved) {
    S.answer = res.answer;
    if (res.answer.ranking) S.ranking = { ...res.answer, key: runKey() };
  }
  const n = S.results.n.toLocaleString("en"), took = S.results.cached ? "cached" : `${S.results.elapsed} s`;
  if (stage === "full") setStatus(`${n} samples, seed ${S.results.seed}, ${took}` + (S.results.note ? "; " + S.results.note : ""), false);
  else setStatus(`${stage === "answer" ? "answer" : "break-even"} from the ${n} base rows (${took}); ${stage === "answer" ? "ranking and break-even demands follow" : "the ranking at the CLI's permutations follows"}…`, true);
  renderResults();
  markCurrent("answer");
  if (stage !== "answer") markCurrent("base");
  if (stage === "full") {
    document.body.dataset.runs = String((+document.body.dataset.runs || 0) + 1);
  } else if (!res.results.breakeven) markStale("recomputing…", ["base"]);
  document.body.dataset.answers = String((+document.body.dataset.answers || 0) + 1);
  if (moved) updateAnswer(); else updateTarget();
}

// After a second without an answer, say what the cores are busy with (a full run, maybe
// started in another tab, or other tabs' runs): the wait then has a reason on the page.
function waitNote(promise, seq, what) {
  let timer = null;
  const poll = async () => {
    try {
      const st = await api("/api/status");
      if (seq !== S.runSeq) return;
      let why = "";
      if (st.full_run) why = `waiting for the cores: a full run is going (${st.full_run.done.toLocaleString("en")} of ${st.full_run.total.toLocaleString("en")} samples, ${st.full_run.elapsed} s; started in this or another tab)`;
      else if (st.quick_runs > 1) why = `sharing the cores with ${st.quick_runs - 1} other tab's run`;
      if (why) { setStatus(`${what}: ${why}`, true); $("status").dataset.waiting = "1"; }
    } catch (e) { /* the status is a courtesy */ }
    timer = setTimeout(poll, 1500);
  };
  timer = setTimeout(poll, 1000);
  return promise.finally(() => { clearTimeout(timer); delete $("status").dataset.waiting; });
}

async function updateAnswer() {
  const d = S.results.grid[S.demandIndex];
  $("demand-label").textContent = fmtTokens(d) + " " + (S.results.unit || "tokens/month");
  renderCharts();
  try {
    const a = await api("/api/answer", { text: S.text, path: S.base.path, samples: S.samples, seed: S.seed, demand: d });
    if (a.demand !== S.results.grid[S.demandIndex]) return;
    S.answer = a;
    if (a.ranking) S.ranking = { ...a, key: runKey() };
    renderAnswer(); updateTarget(); rankHere();
  } catch (e) { if (e.status !== 409) showGlobalError(e.message); }
}

// ------------------------------------------------------------------ chance the target exceeds x
async function updateTarget() {
  const d = S.results.grid[S.demandIndex], x = $("target-x").value.trim() || "0";
  const seq = ++S.targetSeq;
  try {
    const t = await api("/api/target", { text: S.text, path: S.base.path, samples: S.samples, seed: S.seed, demand: d, threshold: x });
    if (seq !== S.targetSeq) return;
    $("target-error").hidden = true;
    $("target-name").textContent = t.target; $("target-unit").textContent = t.unit;
    let html = `<tr><th></th><th>P(${escapeHtml(t.target)} &gt; ${escapeHtml(x)}) at ${fmtTokens(t.demand)}</th><th>scenarios</th></tr>`;
    for (const [s, c] of Object.entries(t.rows)) {
      html += `<tr><td>${escapeHtml(s)}</td><td data-strategy="${escapeHtml(s)}" data-p="${c.p}">${escapeHtml(c.text)}</td><td class="muted">${c.events.toLocaleString("en")} of ${c.rows.toLocaleString("en")}</td></tr>`;
    }
    $("target-table").innerHTML = html;
    document.body.dataset.targets = String((+document.body.dataset.targets || 0) + 1);
  } catch (e) {
    if (e.status === 409 || seq !== S.targetSeq) return;
    $("target-error").hidden = false; $("target-error").textContent = e.message;
    document.body.dataset.targets = String((+document.body.dataset.targets || 0) + 1);
  }
}

function renderResults() {
  const r = S.results;
  const slider = $("demand-slider");
  slider.max = r.grid.length - 1; slider.value = S.demandIndex;
  $("demand-label").textContent = fmtTokens(r.grid[S.demandIndex]) + " " + (r.unit || "tokens/month");
  for (const id of ["fan-strategy", "rank-strategy"]) {
    const sel = $(id), cur = sel.value;
    sel.innerHTML = r.strategies.map((s) => `<option>${escapeHtml(s)}</option>`).join("");
    sel.value = r.strategies.includes(cur) ? cur : r.strategies[0];
  }
  renderAnswer(); renderCharts();
}

function renderAnswer() {
  const r = S.results, a = S.answer;
  $("sentence").textContent = a.sentence;
  const pts = r.report.length ? r.report : [r.grid[S.demandIndex]];
  const d = r.grid[S.demandIndex];
  let html = `<tr><th>P(beats the API)</th>${pts.map((p) => `<th class="${p === d ? "sel" : ""}">${fmtTokens(p)}</th>`).join("")}</tr>`;
  for (const s of r.strategies) {
    html += `<tr><td>${escapeHtml(s)}</td>`;
    for (const p of pts) {
      const i = r.grid.indexOf(p), v = r.p[s];
      let was = "";
      if (S.pinned && S.pinned.p[s]) {
        const j = S.pinned.grid.indexOf(p);
        if (j >= 0) was = `<span class="was">pinned ${fmtPct(S.pinned.p[s].p[j])}</span>`;
      }
      html += `<td class="${p === d ? "sel" : ""}" data-strategy="${escapeHtml(s)}" data-demand="${p}" data-p="${v.p[i]}">${fmtPct(v.p[i])} <span class="muted">(${fmtPct(v.lo[i])}–${fmtPct(v.hi[i])})</span>${was}</td>`;
    }
    html += "</tr>";
  }
  $("ptable").innerHTML = html;
  if (S.ranking && S.ranking.key === runKey() && S.ranking.demand === d && S.rankPending !== d) markCurrent("full");
  else markStale("recomputing…", ["full"]);
  renderRanking();
}

// ------------------------------------------------------------------ loading, saving, full runs
// "-edited" once: saving book-edited.toml again offers the same name (asked before overwriting)
function savedName(path) { return path.replace(/\.toml$/, "").replace(/-edited$/, "") + "-edited.toml"; }

function loadState(state) {
  S.base = { text: state.text, path: state.path };
  S.text = state.text; S.edits = {}; S.families = state.families; S.dirty = false;
  $("book-name").textContent = `${state.name} — ${state.path}`;
  $("save-path").value = savedName(state.path);
  $("unsaved").hidden = true;
  showGlobalError(null);
  renderInputs(state);
  refresh();
}

async function saveBook(overwrite) {
  $("save-msg").textContent = "";
  try {
    const res = await api("/api/save", { text: S.base.text, path: S.base.path, edits: S.edits, dest: $("save-path").value, overwrite });
    if (res.exists) {
      if (window.confirm(`${res.exists} exists. Overwrite it?`)) return saveBook(true);
      $("save-msg").textContent = "not saved: the file exists"; return;
    }
    const todo = Object.keys(S.edits).length ? "; fill in the sources marked TODO" : "";
    loadState(res.state);
    // a reload opens the saved file, not the book the app started with
    history.replaceState(null, "", "?book=" + encodeURIComponent(res.saved));
    $("save-msg").textContent = `saved ${res.saved}${todo}`;
  } catch (e) { $("save-msg").textContent = e.message; }
}

async function runFull() {
  if (S.text !== S.base.text) { $("full-msg").textContent = "save the book first: a full run reads its file, as mc-tco run does"; return; }
  try {
    const job = await api("/api/full", { path: S.base.path, seed: S.seed });
    S.job = job.id; $("cancel").hidden = false; $("full").disabled = true; $("full-progress").hidden = false;
    pollJob();
  } catch (e) { $("full-msg").textContent = e.message; }
}

async function pollJob() {
  if (!S.job) return;
  const j = await api("/api/job?id=" + encodeURIComponent(S.job)).catch((e) => ({ status: "error", error: e.message, lines: [] }));
  const bar = $("full-progress");
  bar.max = j.total || 1; bar.value = j.done || 0;
  const last = j.lines && j.lines.length ? j.lines[j.lines.length - 1] : "";
  if (j.status === "running") {
    $("full-msg").textContent = `${last} — ${(j.done || 0).toLocaleString("en")} of ${(j.total || 0).toLocaleString("en")} samples, ${j.elapsed} s`;
    setTimeout(pollJob, 400); return;
  }
  S.job = null; $("cancel").hidden = true; $("full").disabled = false; bar.hidden = j.status !== "done";
  $("full-msg").textContent = j.status === "done" ? `done in ${j.elapsed} s: wrote ${j.result.results} and ${j.result.memo}` : (j.status === "cancelled" ? "cancelled; nothing was written" : "failed: " + j.error);
}

function pin() {
  S.pinned = JSON.parse(JSON.stringify(S.results));
  $("unpin").hidden = false;
  $("pin-note").textContent = `pinned: ${S.pinned.n.toLocaleString("en")} samples, seed ${S.pinned.seed} (dashed)`;
  renderAnswer(); renderCharts();
}

async function openText(text, name) {
  try { loadState(await api("/api/load", { text, name })); } catch (e) { showGlobalError(e.message); }
}

async function init() {
  const saved = new URLSearchParams(location.search).get("book");
  let st, note = null;
  try { st = await api("/api/book" + (saved ? "?path=" + encodeURIComponent(saved) : "")); } catch (e) {
    if (!saved) throw e;
    note = `could not reopen ${saved} (${e.message}); showing the book the app started with`;
    history.replaceState(null, "", location.pathname);
    st = await api("/api/book");
  }
  S.samples = st.samples; S.seed = st.seed; S.defaultSamples = st.default_samples;
  const sizes = [256, 512, 1024, 2048, 4096, 8192, 16384, 32768];
  if (!sizes.includes(S.samples)) sizes.push(S.samples);
  $("samples").innerHTML = sizes.sort((a, b) => a - b).map((n) => `<option value="${n}">${n.toLocaleString("en")}</option>`).join("");
  $("samples").value = String(S.samples);
  $("seed").value = S.seed;
  $("samples").addEventListener("change", () => { S.samples = +$("samples").value; refresh(); });
  $("seed").addEventListener("input", () => {  // refused at once; a valid seed runs once typed
    clearTimeout(checkTimer);
    if (showSeedError()) { ++S.runSeq; markStale("not computed: fix the seed"); setStatus("not run: fix the seed", false); } else checkTimer = setTimeout(refresh, 300);
  });
  $("demand-slider").addEventListener("input", () => { S.demandIndex = +$("demand-slider").value; updateAnswer(); });
  $("target-x").addEventListener("change", () => S.results && updateTarget());
  $("fan-strategy").addEventListener("change", renderFan);
  $("rank-strategy").addEventListener("change", renderRanking);
  $("pin").addEventListener("click", pin);
  $("unpin").addEventListener("click", () => { S.pinned = null; $("unpin").hidden = true; $("pin-note").textContent = ""; renderAnswer(); renderCharts(); });
  $("save").addEventListener("click", () => saveBook(false));
  $("full").addEventListener("click", runFull);
  $("cancel").addEventListener("click", () => S.job && api("/api/cancel", { id: S.job }));
  $("open-file").addEventListener("change", async (ev) => { const f = ev.target.files[0]; if (f) openText(await f.text(), f.name); });
  $("paste-load").addEventListener("click", () => openText($("paste-text").value, "pasted.toml"));
  window.addEventListener("resize", () => S.results && (renderCharts(), renderRanking()));
  // unsaved edits: the browser asks before a reload or close drops them
  window.addEventListener("beforeunload", (ev) => { if (S.dirty) { ev.preventDefault(); ev.returnValue = ""; } });
  loadState(st);
  if (note) showGlobalError(note);
}

init().catch((e) => showGlobalError(e.message));
