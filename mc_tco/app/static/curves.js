// mc-tco explorer: the curves panel (issue 25, items 2-4), a script of its own beside app.js.
// At the page's demand it draws the cumulative curves of the target per strategy with their
// Monte Carlo band, the top inputs against the target (winners green, losers grey) and,
// for a condition typed in "given", P(beats the API) given it beside all scenarios.
// It reads the page's run from app.js's state S (book text, samples, seed, demand) and asks
// POST /api/curves (mc_tco/app/curves.py); it redraws after every run (body[data-runs])
// and when the demand slider moves. Nothing is fetched from outside this server.
"use strict";

(() => {
  const NS = "http://www.w3.org/2000/svg";
  const TOKEN = document.querySelector('meta[name="mc-tco-token"]').content;
  const COLOR = { buy: "#1f77b4", rent: "#d62728", reserved: "#ff7f0e", owned: "#2ca02c", hybrid: "#9467bd" };
  const SPARE = ["#8c564b", "#e377c2", "#17becf", "#7f7f7f"];
  const WIN = "#2a9d4b", LOSE = "#b0b0b0";
  let seq = 0, last = null, timer = null;

  const byId = (id) => document.getElementById(id);
  const colorOf = (s, i) => COLOR[s] || SPARE[i % SPARE.length];
  const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  function node(tag, attrs, parent) {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (parent) parent.appendChild(e);
    return e;
  }
  function html(tag, attrs, parent, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function compact(x, money) {  // axis ticks: $-12k, $1.5M, 0.25
    if (x === null || !Number.isFinite(x)) return "n/a";
    const a = Math.abs(x), sign = x < 0 ? "-" : "", pre = money ? "$" : "";
    for (const [v, s] of [[1e12, "T"], [1e9, "B"], [1e6, "M"], [1e3, "k"]]) {
      if (a >= v) return sign + pre + +(a / v).toPrecision(3) + s;
    }
    return sign + pre + +a.toPrecision(3);
  }
  function ticks(lo, hi, n) {
    const span = hi - lo || Math.abs(hi) || 1, mag = Math.pow(10, Math.floor(Math.log10(span / n)));
    const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => span / s <= n) || 10 * mag;
    const out = [];
    for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-9 * step; v += step) out.push(Math.abs(v) < 1e-12 * step ? 0 : v);
    return out;
  }
  // a frame with linear axes; returns the scales
  function frame(svg, W, H, xs, ys, money, xlabel, yfmt) {
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    svg.setAttribute("width", "100%");
    const m = { l: 58, r: 10, t: 8, b: 32 };
    const X = (v) => m.l + (v - xs[0]) / (xs[1] - xs[0] || 1) * (W - m.l - m.r);
    const Y = (v) => H - m.b - (v - ys[0]) / (ys[1] - ys[0] || 1) * (H - m.t - m.b);
    const ax = node("g", { class: "axis", "font-size": 10, fill: "#445" }, svg);
    for (const t of ticks(ys[0], ys[1], 5)) {
      node("line", { x1: m.l, x2: W - m.r, y1: Y(t), y2: Y(t), stroke: "#e4e4e4" }, ax);
      node("text", { x: m.l - 4, y: Y(t) + 3, "text-anchor": "end" }, ax).textContent = yfmt(t);
    }
    for (const t of ticks(xs[0], xs[1], 5)) {
      node("text", { x: X(t), y: H - m.b + 13, "text-anchor": "middle" }, ax).textContent = compact(t, money);
    }
    node("line", { x1: m.l, x2: W - m.r, y1: H - m.b, y2: H - m.b, stroke: "#888" }, ax);
    node("text", { x: W - m.r, y: H - 3, "text-anchor": "end" }, ax).textContent = xlabel;
    return { X, Y, m };
  }

  function build() {
    const root = byId("curves-panel");
    if (!root || root.dataset.built) return root;
    root.dataset.built = "1";
    root.classList.add("card");
    const h = html("h3", {}, root, "Cumulative curves at this demand ");
    const side = html("select", { id: "curves-side", "aria-label": "which curve" }, h);
    side.innerHTML = '<option value="ccdf">P(target &gt; x): descending</option><option value="cdf">P(target ≤ x): ascending</option>';
    html("div", { id: "curves-caption", class: "muted" }, root);
    node("svg", { id: "chart-cdf", class: "chart" }, root);
    const h2 = html("h3", {}, root, "Top inputs against the target, for ");
    html("select", { id: "scatter-strategy", "aria-label": "strategy of the scatter" }, h2);
    html("div", { id: "scatter-caption", class: "muted" }, root);
    html("div", { id: "scatter-grid", class: "grid2" }, root);
    const row = html("div", { class: "slider-row" }, root);
    html("label", { for: "given-text" }, row, "given");
    html("input", { id: "given-text", type: "text", size: 44, "aria-label": "given",
      placeholder: "api_price_annual_change>-0.05, node_price in p10..p50" }, row);
    html("table", { id: "given-table" }, root);
    const err = html("div", { id: "given-error", class: "error" }, root); err.hidden = true;
    side.addEventListener("change", () => last && drawCurves(last));
    byId("scatter-strategy").addEventListener("change", refresh);
    byId("given-text").addEventListener("change", refresh);
    return root;
  }

  function page() {  // app.js's state, when a run is on the page
    // eslint-disable-next-line no-undef
    const s = typeof S !== "undefined" ? S : null;
    return s && s.results && s.text ? s : null;
  }

  async function refresh() {
    const s = page();
    if (!s || !build()) return;
    const my = ++seq;
    const body = { text: s.text, path: s.base.path, samples: s.samples, seed: s.seed,
      demand: s.results.grid[s.demandIndex], strategy: byId("scatter-strategy").value || null,
      given: byId("given-text").value.trim() };
    try {
      const r = await fetch("/api/curves", { method: "POST", body: JSON.stringify(body),
        headers: { "X-Mc-Tco-Token": TOKEN, "Content-Type": "application/json" } });
      const data = await r.json();
      if (my !== seq) return;
      if (!r.ok) throw new Error(data.error || r.statusText);
      last = data;
      drawCurves(data); drawScatter(data); drawGiven(data);
    } catch (e) {
      if (my !== seq) return;
      byId("curves-caption").textContent = "not drawn: " + e.message;
    }
    document.body.dataset.curves = String((+document.body.dataset.curves || 0) + 1);
  }

  function drawCurves(r) {
    const svg = byId("chart-cdf"), side = byId("curves-side").value, c = r.curves;
    const money = /USD/.test(r.unit), W = svg.clientWidth || 700, H = 260;
    const xs = c.x.filter(Number.isFinite);
    const f = frame(svg, W, H, [xs[0], xs[xs.length - 1]], [0, 1], money, `x (${r.unit})`, (v) => Math.round(100 * v) + "%");
    if (xs[0] < 0 && xs[xs.length - 1] > 0) node("line", { x1: f.X(0), x2: f.X(0), y1: f.m.t, y2: H - f.m.b, stroke: "#333", "stroke-dasharray": "2,3" }, svg);
    Object.entries(c.strategies).forEach(([s, v], i) => {
      const col = colorOf(s, i), lo = v[side + "_lo"], hi = v[side + "_hi"], ys = v[side];
      const up = c.x.map((x, j) => `${f.X(x).toFixed(1)},${f.Y(hi[j]).toFixed(1)}`);
      const dn = c.x.map((x, j) => `${f.X(x).toFixed(1)},${f.Y(lo[j]).toFixed(1)}`).reverse();
      node("path", { d: "M" + up.join("L") + "L" + dn.join("L") + "Z", fill: col, "fill-opacity": 0.18, stroke: "none" }, svg);
      node("path", { d: "M" + c.x.map((x, j) => `${f.X(x).toFixed(1)},${f.Y(ys[j]).toFixed(1)}`).join("L"),
        fill: "none", stroke: col, "stroke-width": 2, class: "cdf-series", "data-strategy": s,
        "data-at-zero": String(atZero(c.x, ys)) }, svg);
      const ly = f.m.t + 12 + 14 * i, lx = side === "cdf" ? f.m.l + 10 : W - 150;
      node("line", { x1: lx, x2: lx + 16, y1: ly - 4, y2: ly - 4, stroke: col, "stroke-width": 2 }, svg);
      node("text", { x: lx + 20, y: ly, "font-size": 11 }, svg).textContent = s;
    });
    const what = side === "cdf" ? `P(${r.target} ≤ x)` : `P(${r.target} > x)`;
    byId("curves-caption").textContent = `${what} at ${compact(r.demand, false)} tokens/month, per strategy; shaded: ${c.method}`;
  }

  function atZero(x, ys) {  // the drawn curve at the threshold nearest 0, for the tests
    let j = 0;
    x.forEach((v, i) => { if (Math.abs(v) < Math.abs(x[j])) j = i; });
    return ys[j];
  }

  function drawScatter(r) {
    const sc = r.scatter, sel = byId("scatter-strategy"), cur = sel.value;
    const names = Object.keys(r.curves.strategies);
    sel.innerHTML = names.map((s) => `<option>${esc(s)}</option>`).join("");
    sel.value = names.includes(cur) ? cur : sc.strategy;
    const by = { shapley: "Shapley effect", ST: "ST" }[sc.ranked_by] || sc.ranked_by;
    const ranked = sc.ranking_target.endsWith(">0") ? `'${sc.ranking_target.slice(0, -2)} > 0'` : `the ${sc.ranking_target}`;
    byId("scatter-caption").textContent = `${sc.strategy}: the ${sc.inputs.length} top inputs by ${by} for ${ranked}; green: ${r.target} > 0 in ${sc.p_win_text} of ${sc.rows.toLocaleString("en")} scenarios` + (sc.step > 1 ? ` (every ${sc.step}th drawn)` : "");
    const grid = byId("scatter-grid");
    grid.innerHTML = "";
    const money = /USD/.test(r.unit);
    const yv = sc.y.filter(Number.isFinite), ylo = Math.min(...yv), yhi = Math.max(...yv);
    sc.inputs.forEach((inp, k) => {
      const box = html("div", { class: "scatter-panel", "data-input": inp.name }, grid);
      const title = html("div", { class: "muted" }, box, `${k + 1}. ${inp.name}` + (inp.score !== null ? ` — ${by} ${inp.score.toFixed(2)} ± ${(inp.conf ?? NaN).toFixed(2)}` : ""));
      title.title = inp.unit;
      const svg = node("svg", { class: "chart scatter" }, box);
      const xv = inp.x.filter(Number.isFinite), W = 340, H = 210;
      const f = frame(svg, W, H, [Math.min(...xv), Math.max(...xv)], [ylo, yhi], false, inp.name + (inp.unit ? ` (${inp.unit})` : ""), (v) => compact(v, money));
      if (ylo < 0 && yhi > 0) node("line", { x1: f.m.l, x2: W - f.m.r, y1: f.Y(0), y2: f.Y(0), stroke: "#333", "stroke-dasharray": "4,3" }, svg);
      const lose = node("g", { fill: LOSE }, svg), win = node("g", { fill: WIN }, svg);
      inp.x.forEach((x, i) => {
        if (x === null || sc.y[i] === null) return;
        node("circle", { cx: f.X(x).toFixed(1), cy: f.Y(sc.y[i]).toFixed(1), r: 1.6, class: sc.wins[i] ? "win" : "lose" }, sc.wins[i] ? win : lose);
      });
    });
  }

  function drawGiven(r) {
    const t = byId("given-table"), err = byId("given-error"), g = r.given;
    t.innerHTML = ""; err.hidden = true;
    if (!g) return;
    if (g.error) { err.hidden = false; err.textContent = g.error; return; }
    let h = `<tr><th></th><th>P(${esc(r.target)} &gt; 0) given ${esc(g.given)} (${g.rows_given.toLocaleString("en")} of ${g.rows_total.toLocaleString("en")} scenarios)</th><th>all scenarios</th></tr>`;
    for (const [s, c] of Object.entries(g.rows)) {
      h += `<tr><td>${esc(s)}</td><td data-strategy="${esc(s)}" data-p="${c.p}">${esc(c.text)}</td><td class="muted" data-p-all="${c.p_all}">${esc(c.text_all)}</td></tr>`;
    }
    t.innerHTML = h;
  }

  new MutationObserver(() => refresh()).observe(document.body, { attributes: true, attributeFilter: ["data-runs"] });
  document.addEventListener("input", (ev) => {
    if (ev.target && ev.target.id === "demand-slider") { clearTimeout(timer); timer = setTimeout(refresh, 300); }
  });
})();
