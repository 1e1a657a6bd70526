// mc-tco explorer: the figures, drawn as inline SVG (no library). Loaded before app.js,
// whose formatting (fmtTokens, fmtUsd, fmtPct) and state (S) they use when called.
"use strict";

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

// A symmetric-log scale: linear within +-c, logarithmic beyond, sign kept (the saving is
// negative at small demands and grows with demand over four decades).
function symlog(c) { return (v) => Math.sign(v) * Math.log10(1 + Math.abs(v) / c); }

// Ticks of a symlog axis from lo to hi (data units): 0 and +-{1, 2, 5} x 10^k, at least
// `gap` pixels apart on the screen mapping Y.
function symlogTicks(lo, hi, c, Y, gap) {
  const out = [0];
  const top = Math.max(Math.abs(lo), Math.abs(hi));
  for (let k = Math.floor(Math.log10(c)) - 1; 10 ** k <= top * 1.0001; k++) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** k;
      if (v <= hi) out.push(v);
      if (-v >= lo) out.push(-v);
    }
  }
  out.sort((a, b) => Math.abs(a) - Math.abs(b));
  const kept = [];
  for (const v of out) if (kept.every((w) => Math.abs(Y(v) - Y(w)) >= gap)) kept.push(v);
  return kept;
}

// A line chart on a log x axis. spec: {x, ymin, ymax, yfmt, ylog: c (a symlog y axis,
// linear within +-c), series: [{y, color, dash, label, width}], bands: [{lo, hi, color,
// opacity}], marker, zero, legend: [{label, color, dash}], xlabel}
function lineChart(svg, spec) {
  clear(svg);
  const W = svg.clientWidth || 500, H = svg.clientHeight || 250;
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  const m = { l: 56, r: 10, t: 8, b: 30 };
  const xs = spec.x, lx = xs.map(Math.log10);
  const x0 = Math.min(...lx), x1 = Math.max(...lx);
  const X = (v) => m.l + (Math.log10(v) - x0) / (x1 - x0 || 1) * (W - m.l - m.r);
  const f = spec.ylog ? symlog(spec.ylog) : (v) => v;
  const f0 = f(spec.ymin), f1 = f(spec.ymax);
  const Y = (v) => H - m.b - (f(v) - f0) / (f1 - f0 || 1) * (H - m.t - m.b);
  const ax = el("g", { class: "axis" }, svg);
  const yticks = spec.ylog ? symlogTicks(spec.ymin, spec.ymax, spec.ylog, Y, 18) : niceTicks(spec.ymin, spec.ymax, 5);
  for (const t of yticks) {
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
  const clamp = (v) => Math.max(spec.ymin, Math.min(spec.ymax, v));
  const path = (ys) => {
    let d = "", pen = false;
    ys.forEach((v, i) => {
      if (v === null || !Number.isFinite(v)) { pen = false; return; }
      d += (pen ? "L" : "M") + X(xs[i]).toFixed(1) + "," + Y(clamp(v)).toFixed(1);
      pen = true;
    });
    return d;
  };
  const area = (lo, hi) => {
    const idx = xs.map((_, i) => i).filter((i) => Number.isFinite(lo[i]) && Number.isFinite(hi[i]));
    if (!idx.length) return "";
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
    el("line", { x1: X(spec.marker), x2: X(spec.marker), y1: m.t, y2: H - m.b, stroke: "#333", "stroke-dasharray": "2,3", class: "marker" }, svg);
  }
  const lg = el("g", { class: "legend" }, svg);
  (spec.legend || []).forEach((item, i) => {
    const y = m.t + 10 + 14 * i;
    el("line", { x1: m.l + 8, x2: m.l + 26, y1: y - 4, y2: y - 4, stroke: item.color, "stroke-width": 2, "stroke-dasharray": item.dash ? "5,4" : "none" }, lg);
    const t = el("text", { x: m.l + 30, y: y }, lg);
    t.textContent = item.label;
  });
}

// A legend in HTML under a chart: it wraps instead of being clipped by the SVG.
function htmlLegend(box, items) {
  box.innerHTML = items.map((it) => `<span class="key"><svg width="20" height="8"><line x1="1" x2="19" y1="4" y2="4" stroke="${it.color}" stroke-width="${it.band ? 7 : 2}" stroke-opacity="${it.band ? 0.3 : 1}" stroke-dasharray="${it.dash ? "5,4" : "none"}"/></svg>${escapeHtml(it.label)}</span>`).join("");
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


// ------------------------------------------------------------------ the result charts
function regrid(P, r, ys) {  // the pinned curve on the current grid (same points when the grid is unchanged)
  return r.grid.map((x) => { const j = P.grid.indexOf(x); return j >= 0 ? ys[j] : null; });
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
  renderFan();
  renderBreakeven();
}

// The fan chart of the target on a symmetric-log y axis, linear within +-c where c is the
// middle half of the scenarios at the chosen demand: that band is read on a linear scale,
// and the tails at the largest demands (20x the saving at the decision demand) no longer
// flatten it to a line at zero; the sign (saving or loss) stays at the zero line.
function renderFan() {
  const r = S.results, P = S.pinned, d = r.grid[S.demandIndex], i = S.demandIndex;
  const s = $("fan-strategy").value || r.strategies[0], c = color(s, r.strategies.indexOf(s));
  const q = r.fan.quantiles, vals = r.fan.values[s];
  const qi = (x) => q.findIndex((v) => Math.abs(v - x) < 1e-9);
  const lo = vals[0], hi = vals[vals.length - 1], med = vals[qi(0.5) >= 0 ? qi(0.5) : Math.floor(vals.length / 2)];
  const inner = qi(0.25) >= 0 && qi(0.75) >= 0 ? [vals[qi(0.25)], vals[qi(0.75)]] : null;
  let all = [...lo, ...hi].filter(Number.isFinite);
  let pmed = null;
  if (P && P.fan.values[s]) { pmed = regrid(P, r, P.fan.values[s][Math.floor(P.fan.values[s].length / 2)]); all = all.concat(pmed.filter(Number.isFinite)); }
  const ymin = Math.min(0, ...all), ymax = Math.max(0, ...all);
  const here = (inner ? [inner[0][i], inner[1][i]] : [lo[i], hi[i]]).concat([med[i]]).filter(Number.isFinite).map(Math.abs);
  const big = Math.max(...all.map(Math.abs), 1);
  const cth = Math.max(...here, big / 1e4);
  const fb = [{ lo, hi, color: c, opacity: 0.15 }];
  if (inner) fb.push({ lo: inner[0], hi: inner[1], color: c, opacity: 0.3 });
  const fs = [{ y: med, color: c, label: "median" }];
  if (pmed) fs.push({ y: pmed, color: "#555", dash: true, width: 1.5, label: "pinned median" });
  const svg = $("chart-fan");
  lineChart(svg, { x: r.grid, ymin, ymax, ylog: cth, yfmt: fmtUsd, series: fs, bands: fb, zero: true, marker: d });
  svg.dataset.linear = String(cth);
  const items = [{ label: `${s}: median`, color: c }];
  if (inner) items.push({ label: "25–75%", color: c, band: true });
  items.push({ label: `${fmtPct(q[0])}–${fmtPct(q[q.length - 1])} of scenarios`, color: c, band: true });
  if (pmed) items.push({ label: "pinned median", color: "#555", dash: true });
  htmlLegend($("fan-legend"), items);
  $("fan-scale").textContent = `${r.target_unit}; y axis linear within ±${fmtUsd(cth)} (the middle half of the scenarios at ${fmtTokens(d)}), logarithmic beyond`;
}

function renderBreakeven() {
  const r = S.results, P = S.pinned, d = r.grid[S.demandIndex];
  if (!r.breakeven) return;
  const bs = [], bl = [];
  r.strategies.forEach((st, i) => {
    const b = r.breakeven[st];
    if (!b) return;
    bs.push({ y: b.cdf, color: color(st, i), label: st });
    bl.push({ label: `${st}: never in ${fmtPct(b.p_never)}`, color: color(st, i) });
    if (P && P.breakeven && P.breakeven[st]) bs.push({ y: regrid(P, r, P.breakeven[st].cdf), color: color(st, i), dash: true, width: 1.5 });
  });
  lineChart($("chart-be"), { x: r.grid, ymin: 0, ymax: 1, yfmt: (v) => Math.round(100 * v) + "%", series: bs, legend: bl, marker: d });
}

function renderRanking() {
  const svg = $("chart-rank"); clear(svg);
  const s = $("rank-strategy").value || S.results.strategies[0];
  const rk = S.ranking && S.ranking.ranking && S.ranking.ranking[s];
  if (!rk) { $("rank-caption").textContent = "the ranking follows the design rows…"; return; }
  const at = S.ranking.demand;
  const level = Math.round(100 * (S.ranking.conf_level || 0.95));
  $("rank-title").textContent = rk.title;
  svg.dataset.index = rk.index;
  const moved = rk.at != null && Math.abs(rk.at / at - 1) > 1e-9;
  $("rank-caption").textContent = `at ${fmtTokens(moved ? rk.at : at)}${moved ? ` (the nearest demand where the run estimated Shapley effects; ${S.rankPending === at ? `those at ${fmtTokens(at)} follow…` : `${fmtTokens(at)} is not one`})` : ""}: ranked by ${rk.target.endsWith(">0") ? `'beats the API' (${rk.wins} winning scenarios)` : `the ${rk.target} itself` + (rk.rare ? ` (only ${rk.rare.events} of ${rk.rare.rows} scenarios ${rk.wins < rk.rare.rows - rk.wins ? "beat" : "lose to"} the API: too few to rank by that${rk.rare.nearest != null ? `; the nearest demand with enough is ${fmtTokens(rk.rare.nearest)}` : ""})` : "")}; ` + (rk.index === "shapley" ? `bar Shapley effect ± ${level}% half-width (the inputs are correlated: per-input Sobol' indices are not defined, as mc-tco run says)` : `bar ST ± ${level}% half-width, tick S1`) + (rk.rests_on ? `; ${rk.rests_on}` : "") + (rk.rough ? (S.refining ? "; a first estimate: the CLI's permutations follow…" : "; a first estimate") : "");
  if (rk.constant) $("rank-caption").textContent = `at ${fmtTokens(at)}: the ${rk.target} of ${s} does not vary here (the same in every scenario): nothing to rank`;
  const W = svg.clientWidth || 500, H = svg.clientHeight || 250;
  const narrow = W < 420, m = { l: Math.min(205, W * (narrow ? 0.5 : 0.42)), r: 36, t: 6 };
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  const rows = rk.rows, top = Math.max(0.05, ...rows.map((x) => (x[1] || 0) + (x[2] || 0)));
  const bh = (H - m.t - 6) / Math.max(rows.length, 1);
  const X = (v) => m.l + Math.max(0, v) / top * (W - m.l - m.r);
  rows.forEach(([name, st, conf, s1], i) => {
    const y = m.t + i * bh;
    const t = el("text", { x: m.l - 6, y: y + bh * 0.62, "text-anchor": "end", "font-size": narrow ? 10 : 12 }, svg); t.textContent = name;
    el("rect", { x: m.l, y: y + bh * 0.15, width: Math.max(0, X(st || 0) - m.l), height: bh * 0.7, fill: color(s, S.results.strategies.indexOf(s)), "fill-opacity": 0.75, class: "bar", "data-input": name }, svg);
    if (conf) el("line", { x1: X(st - conf), x2: X(st + conf), y1: y + bh / 2, y2: y + bh / 2, stroke: "#222" }, svg);
    if (s1 !== null && s1 !== undefined) el("line", { x1: X(s1), x2: X(s1), y1: y + bh * 0.1, y2: y + bh * 0.9, stroke: "#000", "stroke-width": 2 }, svg);
    const v = el("text", { x: X((st || 0) + (conf || 0)) + 4, y: y + bh * 0.62, "font-size": 11, fill: "#445" }, svg); v.textContent = st === null ? "n/a" : st.toFixed(2);
  });
}
