// mc-tco explorer: plain JavaScript, no library, nothing fetched from outside this server.
// State lives in this tab only (the server is stateless but for a cache of runs), so two
// tabs never share edits, runs or pins.
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
  results: null, answer: null, pinned: null,
  demandIndex: 0, runSeq: 0, checkSeq: 0, targetSeq: 0, job: null,
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

// ------------------------------------------------------------------ svg helpers
function el(tag, attrs, parent) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}
function clear(svg) { while (svg.firstChild) svg.removeChild(svg.firstChild); }

function niceTicks(lo, hi, n) {
  const span = hi - lo || Math.abs(hi) || 1;
  const step0 = span / n, mag = Math.pow(10, Math.floor(Math.log10(step0)));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => span / s <= n) || 10 * mag;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-9 * step; v += step) out.push(Math.abs(v) < 1e-12 * step ? 0 : v);
  return out;
}

// A line chart on a log x axis. spec: {x, ymin, ymax, yfmt, series: [{y, lo, hi, color, dash,
// label, band}], bands: [{lo, hi, color, opacity}], marker, ylabel}
function lineChart(svg, spec) {
  clear(svg);
  const W = svg.clientWidth || 500, H = svg.clientHeight || 250;
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  const m = { l: 56, r: 10, t: 8, b: 30 };
  const xs = spec.x, lx = xs.map(Math.log10);
  const x0 = Math.min(...lx), x1 = Math.max(...lx);
  const X = (v) => m.l + (Math.log10(v) - x0) / (x1 - x0 || 1) * (W - m.l - m.r);
  const Y = (v) => H - m.b - (v - spec.ymin) / (spec.ymax - spec.ymin || 1) * (H - m.t - m.b);
  const ax = el("g", { class: "axis" }, svg);
  for (const t of niceTicks(spec.ymin, spec.ymax, 5)) {
    el("line", { x1: m.l, x2: W - m.r, y1: Y(t), y2: Y(t), class: "gridline" }, ax);
    const tx = el("text", { x: m.l - 4, y: Y(t) + 4, "text-anchor": "end" }, ax);
    tx.textContent = spec.yfmt(t);
  }
  for (let e = Math.ceil(x0); e <= Math.floor(x1); e++) {
    el("line", { x1: X(10 ** e), x2: X(10 ** e), y1: m.t, y2: H - m.b, class: "gridline" }, ax);
    const tx = el("text", { x: X(10 ** e), y: H - m.b + 14, "text-anchor": "middle" }, ax);
    tx.textContent = fmtTokens(10 ** e);
  }
  el("line", { x1: m.l, x2: W - m.r, y1: H - m.b, y2: H - m.b }, ax);
  const lab = el("text", { x: W - m.r, y: H - 2, "text-anchor": "end" }, ax);
  lab.textContent = spec.xlabel || "demand (tokens/month)";
  const path = (ys) => {
    let d = "", pen = false;
    ys.forEach((v, i) => {
      if (v === null || !Number.isFinite(v)) { pen = false; return; }
      d += (pen ? "L" : "M") + X(xs[i]).toFixed(1) + "," + Y(Math.max(spec.ymin, Math.min(spec.ymax, v))).toFixed(1);
      pen = true;
    });
    return d;
  };
  const area = (lo, hi) => {
    const idx = xs.map((_, i) => i).filter((i) => Number.isFinite(lo[i]) && Number.isFinite(hi[i]));
    if (!idx.length) return "";
    const clamp = (v) => Math.max(spec.ymin, Math.min(spec.ymax, v));
    return "M" + idx.map((i) => X(xs[i]).toFixed(1) + "," + Y(clamp(hi[i])).toFixed(1)).join("L")
      + "L" + idx.reverse().map((i) => X(xs[i]).toFixed(1) + "," + Y(clamp(lo[i])).toFixed(1)).join("L") + "Z";
  };
  for (const b of spec.bands || []) el("path", { d: area(b.lo, b.hi), fill: b.color, "fill-opacity": b.opacity || 0.15, stroke: "none" }, svg);
  if (spec.zero) el("line", { x1: m.l, x2: W - m.r, y1: Y(0), y2: Y(0), stroke: "#555", "stroke-width": 0.8 }, svg);
  for (const s of spec.series) {
    el("path", { d: path(s.y), fill: "none", stroke: s.color, "stroke-width": s.width || 2,
      "stroke-dasharray": s.dash ? "5,4" : "none", class: "series", "data-label": s.label || "" }, svg);
  }
  if (spec.marker) {
    el("line", { x1: X(spec.marker), x2: X(spec.marker), y1: m.t, y2: H - m.b, stroke: "#333", "stroke-dasharray": "2,3" }, svg);
  }
  const lg = el("g", { class: "legend" }, svg);
  (spec.legend || []).forEach((item, i) => {
    const y = spec.legendBottom ? H - m.b - 6 - 14 * ((spec.legend || []).length - 1 - i) : m.t + 10 + 14 * i;
    el("line", { x1: m.l + 8, x2: m.l + 26, y1: y - 4, y2: y - 4, stroke: item.color, "stroke-width": 2, "stroke-dasharray": item.dash ? "5,4" : "none" }, lg);
    const t = el("text", { x: m.l + 30, y: y }, lg);
    t.textContent = item.label;
  });
}

function pdfPicture(svg, pdf) {
  clear(svg);
  const W = 130, H = 44, pad = 3;
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  if (!pdf) return;
  const xs = pdf.x, ys = pdf.y;
  const lo = Math.min(...xs), hi = Math.max(...xs), top = Math.max(...ys) || 1;
  const X = (v) => (hi > lo ? pad + (v - lo) / (hi - lo) * (W - 2 * pad) : W / 2);
  const Y = (v) => H - pad - 10 - v / top * (H - 2 * pad - 12);
  if (pdf.kind === "pdf") {
    const log = xs[0] > 0 && xs[2] / xs[1] > 1.0001 && Math.abs((xs[2] - xs[1]) - (xs[1] - xs[0])) > 1e-9 * Math.abs(xs[1]);
    const Xs = log ? (v) => pad + (Math.log(v) - Math.log(lo)) / (Math.log(hi) - Math.log(lo)) * (W - 2 * pad) : X;
    let d = `M${Xs(xs[0])},${Y(0)}`;
    xs.forEach((x, i) => { d += `L${Xs(x).toFixed(1)},${Y(ys[i]).toFixed(1)}`; });
    d += `L${Xs(xs[xs.length - 1])},${Y(0)}Z`;
    el("path", { d, fill: "#9ec5e8", stroke: "#1f77b4", "stroke-width": 1 }, svg);
    const t = el("text", { x: 2, y: H - 2, "font-size": 9, fill: "#556" }, svg);
    t.textContent = fmtNum(+pdf.q[0].toPrecision(3)) + " … " + fmtNum(+pdf.q[2].toPrecision(3)) + " (90%)";
  } else {
    xs.forEach((x, i) => el("line", { x1: X(x), x2: X(x), y1: Y(0), y2: Y(ys[i]), stroke: "#1f77b4", "stroke-width": 3 }, svg));
    const t = el("text", { x: 2, y: H - 2, "font-size": 9, fill: "#556" }, svg);
    t.textContent = pdf.kind === "constant" ? "constant " + fmtNum(xs[0]) : xs.length + " values";
  }
}

// ------------------------------------------------------------------ the editor (left)
function familyChoices() {
  const out = [];
  for (const [name, f] of Object.entries(S.families)) {
    if (f.alternatives.length) f.alternatives.forEach((alt, i) => out.push({ value: name + "|" + i, label: name + " (" + alt.join(", ") + ")", name, fields: [...alt, ...Object.keys(f.optional).filter((k) => !(!alt.includes("low") && k === "ci"))] }));
    else out.push({ value: name, label: name, name, fields: [...f.required, ...Object.keys(f.optional)] });
  }
  return out;
}
function choiceOf(inp) {
  const f = S.families[inp.family];
  if (!f.alternatives.length) return inp.family;
  const i = f.alternatives.findIndex((alt) => alt.every((k) => k in inp.params));
  return inp.family + "|" + Math.max(i, 0);
}

function renderInputs(state) {
  const box = $("inputs");
  box.innerHTML = "";
  S.inputs = {};
  const choices = familyChoices();
  for (const g of state.groups) {
    const det = document.createElement("details");
    det.className = "group"; det.open = true;
    det.innerHTML = `<summary>${escapeHtml(g.group)} <span class="muted">(${g.inputs.length})</span></summary>`;
    for (const inp of g.inputs) {
      S.inputs[inp.name] = inp;
      const card = document.createElement("div");
      card.className = "input"; card.dataset.input = inp.name;
      card.innerHTML = `<div class="input-head"><span class="name" title="${escapeHtml(inp.description)}">${escapeHtml(inp.name)}</span><span class="muted">${escapeHtml(inp.unit)}</span></div>
        <div class="input-body"><div class="fields"></div><svg class="pdf"></svg></div>
        <div class="error" hidden></div><div class="source">source: ${escapeHtml(inp.source || "(none)")}</div>`;
      const sel = document.createElement("select");
      sel.className = "family"; sel.setAttribute("aria-label", inp.name + " family");
      for (const c of choices) { const o = document.createElement("option"); o.value = c.value; o.textContent = c.label; sel.appendChild(o); }
      sel.value = choiceOf(inp);
      sel.addEventListener("change", () => { drawFields(card, inp, sel.value, true); onEdit(inp.name); });
      const wrap = document.createElement("label"); wrap.textContent = "family"; wrap.appendChild(sel);
      card.querySelector(".fields").appendChild(wrap);
      drawFields(card, inp, sel.value, false);
      pdfPicture(card.querySelector("svg.pdf"), inp.pdf);
      det.appendChild(card);
    }
    box.appendChild(det);
  }
}

function drawFields(card, inp, choice, keep) {
  const fieldsBox = card.querySelector(".fields");
  const old = {};
  fieldsBox.querySelectorAll("input[data-field]").forEach((e) => { old[e.dataset.field] = e.value; e.parentElement.remove(); });
  const c = familyChoices().find((x) => x.value === choice);
  const fam = S.families[c.name];
  for (const k of c.fields) {
    const lab = document.createElement("label");
    lab.textContent = k;
    const e = document.createElement("input");
    e.type = "text"; e.dataset.field = k; e.name = inp.name + "." + k;
    if (k === "values" || k === "weights") e.className = "wide";
    let v = keep && k in old ? old[k] : (k in inp.params ? inp.params[k] : (k in fam.optional ? fam.optional[k] : ""));
    e.value = Array.isArray(v) ? v.map(fmtNum).join(", ") : (v === "" ? "" : fmtNum(v));
    e.addEventListener("input", () => onEdit(inp.name));
    lab.appendChild(e);
    fieldsBox.appendChild(lab);
  }
}

function escapeHtml(s) { return String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]); }

let checkTimer = null;
function onEdit(name) {
  const card = document.querySelector(`.input[data-input="${CSS.escape(name)}"]`);
  const choice = card.querySelector("select.family").value;
  const fields = {};
  card.querySelectorAll("input[data-field]").forEach((e) => { fields[e.dataset.field] = e.value; });
  S.edits[name] = { dist: choice.split("|")[0], fields };
  card.classList.add("changed");
  clearTimeout(checkTimer);
  checkTimer = setTimeout(check, 250);
}

async function check() {
  const seq = ++S.checkSeq;
  const res = await api("/api/check", { text: S.base.text, path: S.base.path, edits: S.edits }).catch((e) => ({ ok: false, error: { message: e.message } }));
  if (seq !== S.checkSeq) return;
  document.querySelectorAll(".input .error").forEach((e) => { e.hidden = true; e.textContent = ""; });
  document.querySelectorAll(".input.invalid").forEach((e) => e.classList.remove("invalid"));
  document.querySelectorAll(".fields input.bad").forEach((e) => e.classList.remove("bad"));
  showGlobalError(null);
  if (!res.ok) {
    const err = res.error;
    const card = err.input && document.querySelector(`.input[data-input="${CSS.escape(err.input)}"]`);
    if (card) {
      card.classList.add("invalid");
      const box = card.querySelector(".error"); box.hidden = false; box.textContent = err.message;
      const f = err.field && card.querySelector(`input[data-field="${CSS.escape(err.field)}"]`);
      if (f) f.classList.add("bad");
    } else showGlobalError(err.message);
    setStatus("not run: fix the value marked in red", false);
    return;
  }
  for (const [name, inp] of Object.entries(res.inputs)) {
    const card = document.querySelector(`.input[data-input="${CSS.escape(name)}"]`);
    if (card) pdfPicture(card.querySelector("svg.pdf"), inp.pdf);
  }
  S.text = res.text;
  $("unsaved").hidden = res.text === S.base.text;
  document.querySelectorAll(".input.changed").forEach((c) => { if (res.text === S.base.text) c.classList.remove("changed"); });
  runQuick();
}

function showGlobalError(msg) { const g = $("global-error"); g.hidden = !msg; g.textContent = msg || ""; }
function setStatus(text, busy) { const s = $("status"); s.textContent = text; s.classList.toggle("busy", !!busy); }

// ------------------------------------------------------------------ runs (right)
async function runQuick() {
  const seq = ++S.runSeq;
  setStatus(`running ${S.samples.toLocaleString("en")} samples…`, true);
  const demand = S.results ? S.results.grid[S.demandIndex] : null;
  try {
    const res = await api("/api/run", { text: S.text, path: S.base.path, samples: S.samples, seed: S.seed, session: SESSION, demand });
    if (seq !== S.runSeq) return;
    S.results = res.results; S.answer = res.answer;
    const i = S.results.grid.indexOf(res.answer.demand);
    S.demandIndex = i >= 0 ? i : 0;
    setStatus(`${S.results.n.toLocaleString("en")} samples, seed ${S.results.seed}, ${res.results.elapsed} s` + (res.results.note ? "; " + res.results.note : ""), false);
    document.body.dataset.runs = String((+document.body.dataset.runs || 0) + 1);
    renderResults(); updateTarget();
  } catch (e) {
    if (e.status === 409 || seq !== S.runSeq) return;
    setStatus("run failed", false); showGlobalError(e.message);
  }
}

async function updateAnswer() {
  const d = S.results.grid[S.demandIndex];
  $("demand-label").textContent = fmtTokens(d) + " " + (S.results.unit || "tokens/month");
  renderCharts();
  try {
    const a = await api("/api/answer", { text: S.text, path: S.base.path, samples: S.samples, seed: S.seed, demand: d });
    if (a.demand !== S.results.grid[S.demandIndex]) return;
    S.answer = a; renderAnswer(); updateTarget();
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
  renderRanking();
}

function renderCharts() {
  const r = S.results, P = S.pinned, d = r.grid[S.demandIndex];
  // P(beats the API)
  const series = [], bands = [], legend = [];
  r.strategies.forEach((s, i) => {
    bands.push({ lo: r.p[s].lo, hi: r.p[s].hi, color: color(s, i) });
    series.push({ y: r.p[s].p, color: color(s, i), label: s });
    legend.push({ label: s, color: color(s, i) });
    if (P && P.p[s]) series.push({ y: regrid(P, r, P.p[s].p), color: color(s, i), dash: true, width: 1.5, label: s + " pinned" });
  });
  if (P) legend.push({ label: "pinned (dashed)", color: "#777", dash: true });
  lineChart($("chart-p"), { x: r.grid, ymin: 0, ymax: 1, yfmt: (v) => Math.round(100 * v) + "%", series, bands, legend, marker: d });
  // fan chart of the target
  const s = $("fan-strategy").value || r.strategies[0];
  const q = r.fan.quantiles, vals = r.fan.values[s];
  const qi = (x) => q.findIndex((v) => Math.abs(v - x) < 1e-9);
  const lo = vals[0], hi = vals[vals.length - 1], med = vals[qi(0.5) >= 0 ? qi(0.5) : Math.floor(vals.length / 2)];
  const inner = qi(0.25) >= 0 && qi(0.75) >= 0 ? [vals[qi(0.25)], vals[qi(0.75)]] : null;
  let all = [...lo, ...hi].filter(Number.isFinite);
  let pmed = null;
  if (P && P.fan.values[s]) { pmed = regrid(P, r, P.fan.values[s][Math.floor(P.fan.values[s].length / 2)]); all = all.concat(pmed.filter(Number.isFinite)); }
  const ymin = Math.min(0, ...all), ymax = Math.max(0, ...all);
  const fb = [{ lo, hi, color: color(s, r.strategies.indexOf(s)), opacity: 0.15 }];
  if (inner) fb.push({ lo: inner[0], hi: inner[1], color: color(s, r.strategies.indexOf(s)), opacity: 0.3 });
  const fs = [{ y: med, color: color(s, r.strategies.indexOf(s)), label: "median" }];
  if (pmed) fs.push({ y: pmed, color: "#555", dash: true, width: 1.5, label: "pinned median" });
  lineChart($("chart-fan"), { x: r.grid, ymin, ymax, yfmt: fmtUsd, series: fs, bands: fb, zero: true, marker: d, legendBottom: true,
    legend: [{ label: `${s}: median, 25–75% and ${fmtPct(q[0])}–${fmtPct(q[q.length - 1])} of scenarios (${r.target_unit})`, color: color(s, r.strategies.indexOf(s)) }].concat(pmed ? [{ label: "pinned median", color: "#555", dash: true }] : []) });
  // break-even demand
  if (r.breakeven) {
    const bs = [], bl = [];
    r.strategies.forEach((st, i) => {
      const b = r.breakeven[st];
      bs.push({ y: b.cdf, color: color(st, i), label: st });
      bl.push({ label: `${st}: never in ${fmtPct(b.p_never)}`, color: color(st, i) });
      if (P && P.breakeven && P.breakeven[st]) bs.push({ y: regrid(P, r, P.breakeven[st].cdf), color: color(st, i), dash: true, width: 1.5 });
    });
    lineChart($("chart-be"), { x: r.grid, ymin: 0, ymax: 1, yfmt: (v) => Math.round(100 * v) + "%", series: bs, legend: bl, marker: d });
  }
}

function regrid(P, r, ys) {  // the pinned curve on the current grid (same points when the grid is unchanged)
  return r.grid.map((x) => { const j = P.grid.indexOf(x); return j >= 0 ? ys[j] : null; });
}

function renderRanking() {
  const svg = $("chart-rank"); clear(svg);
  const s = $("rank-strategy").value || S.results.strategies[0];
  const rk = S.answer.ranking[s];
  if (!rk) return;
  const moved = rk.at != null && Math.abs(rk.at / S.answer.demand - 1) > 1e-9;
  $("rank-caption").textContent = `at ${fmtTokens(moved ? rk.at : S.answer.demand)}${moved ? ` (the nearest demand where the run estimated Shapley effects; ${fmtTokens(S.answer.demand)} is not one)` : ""}: ranked by ${rk.target.endsWith(">0") ? `'beats the API' (${rk.wins} winning scenarios)` : `the ${rk.target} itself` + (rk.rare ? ` (only ${rk.rare.events} of ${rk.rare.rows} scenarios ${rk.wins < rk.rare.rows - rk.wins ? "beat" : "lose to"} the API: too few to rank by that${rk.rare.nearest != null ? `; the nearest demand with enough is ${fmtTokens(rk.rare.nearest)}` : ""})` : "")}; ` + (rk.index === "shapley" ? `bar Shapley effect ± ${Math.round(100 * (S.answer.conf_level || 0.95))}% half-width (the inputs are correlated)` : `bar ST ± ${Math.round(100 * (S.answer.conf_level || 0.95))}% half-width, tick S1`);
  const W = svg.clientWidth || 500, H = svg.clientHeight || 250, m = { l: 205, r: 50, t: 6 };
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  const rows = rk.rows, top = Math.max(0.05, ...rows.map((x) => (x[1] || 0) + (x[2] || 0)));
  const bh = (H - m.t - 6) / Math.max(rows.length, 1);
  const X = (v) => m.l + Math.max(0, v) / top * (W - m.l - m.r);
  rows.forEach(([name, st, conf, s1], i) => {
    const y = m.t + i * bh;
    const t = el("text", { x: m.l - 6, y: y + bh * 0.62, "text-anchor": "end", "font-size": 12 }, svg); t.textContent = name;
    el("rect", { x: m.l, y: y + bh * 0.15, width: Math.max(0, X(st || 0) - m.l), height: bh * 0.7, fill: color(s, S.results.strategies.indexOf(s)), "fill-opacity": 0.75, class: "bar", "data-input": name }, svg);
    if (conf) el("line", { x1: X(st - conf), x2: X(st + conf), y1: y + bh / 2, y2: y + bh / 2, stroke: "#222" }, svg);
    if (s1 !== null && s1 !== undefined) el("line", { x1: X(s1), x2: X(s1), y1: y + bh * 0.1, y2: y + bh * 0.9, stroke: "#000", "stroke-width": 2 }, svg);
    const v = el("text", { x: X((st || 0) + (conf || 0)) + 4, y: y + bh * 0.62, "font-size": 11, fill: "#445" }, svg); v.textContent = st === null ? "n/a" : st.toFixed(2);
  });
}

// ------------------------------------------------------------------ loading, saving, full runs
function loadState(state) {
  S.base = { text: state.text, path: state.path };
  S.text = state.text; S.edits = {}; S.families = state.families;
  $("book-name").textContent = `${state.name} — ${state.path}`;
  $("save-path").value = state.path.replace(/\.toml$/, "") + "-edited.toml";
  $("unsaved").hidden = true;
  showGlobalError(null);
  renderInputs(state);
  runQuick();
}

async function saveBook(overwrite) {
  $("save-msg").textContent = "";
  try {
    const res = await api("/api/save", { text: S.base.text, path: S.base.path, edits: S.edits, dest: $("save-path").value, overwrite });
    if (res.exists) {
      if (window.confirm(`${res.exists} exists. Overwrite it?`)) return saveBook(true);
      $("save-msg").textContent = "not saved: the file exists"; return;
    }
    $("save-msg").textContent = `saved ${res.saved}` + (Object.keys(S.edits).length ? "; fill in the sources marked TODO" : "");
    loadState(res.state);
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
  const st = await api("/api/book");
  S.samples = st.samples; S.seed = st.seed; S.defaultSamples = st.default_samples;
  const sizes = [256, 512, 1024, 2048, 4096, 8192, 16384, 32768];
  if (!sizes.includes(S.samples)) sizes.push(S.samples);
  $("samples").innerHTML = sizes.sort((a, b) => a - b).map((n) => `<option value="${n}">${n.toLocaleString("en")}</option>`).join("");
  $("samples").value = String(S.samples);
  $("seed").value = S.seed;
  $("samples").addEventListener("change", () => { S.samples = +$("samples").value; runQuick(); });
  $("seed").addEventListener("change", () => { const v = parseInt($("seed").value, 10); if (v >= 0) { S.seed = v; runQuick(); } });
  $("demand-slider").addEventListener("input", () => { S.demandIndex = +$("demand-slider").value; updateAnswer(); });
  $("target-x").addEventListener("change", () => S.results && updateTarget());
  $("fan-strategy").addEventListener("change", renderCharts);
  $("rank-strategy").addEventListener("change", renderRanking);
  $("pin").addEventListener("click", pin);
  $("unpin").addEventListener("click", () => { S.pinned = null; $("unpin").hidden = true; $("pin-note").textContent = ""; renderAnswer(); renderCharts(); });
  $("save").addEventListener("click", () => saveBook(false));
  $("full").addEventListener("click", runFull);
  $("cancel").addEventListener("click", () => S.job && api("/api/cancel", { id: S.job }));
  $("open-file").addEventListener("change", async (ev) => { const f = ev.target.files[0]; if (f) openText(await f.text(), f.name); });
  $("paste-load").addEventListener("click", () => openText($("paste-text").value, "pasted.toml"));
  window.addEventListener("resize", () => S.results && renderCharts());
  loadState(st);
}

init().catch((e) => showGlobalError(e.message));
