// mc-tco explorer: the editor of the book's inputs (left). Loaded before app.js, whose
// state (S) and runs (onEdit -> refresh) it uses when called.
"use strict";

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

// Another family's fields from the ones typed: the same name, its synonym (min/max and
// low/high: the ends of a range; mode, median and mean: its centre), or one derived from a
// range: its middle for a centre, and for a normal (lognormal) the sd (sigma) whose 90%
// interval is the range (and back: a mean and sd give the ends of that 90% interval).
// Nothing else is guessed: a field left empty is named by the check.
const SYNONYMS = { low: ["min"], min: ["low"], high: ["max"], max: ["high"],
  mode: ["median", "mean"], median: ["mode", "mean"], mean: ["median", "mode"] };
const Z90 = 1.6448536269514722;
function carryOver(old, fields, family) {
  const num = (k) => (k in old && old[k] !== "" && Number.isFinite(+old[k]) ? +old[k] : null);
  const end = (names) => names.map(num).find((v) => v !== null) ?? null;
  let lo = end(["low", "min"]), hi = end(["high", "max"]);
  const mean = num("mean"), sd = num("sd");
  if ((lo === null || hi === null) && mean !== null && sd > 0) { lo = mean - Z90 * sd; hi = mean + Z90 * sd; }
  const out = {};
  for (const k of fields) {
    const same = [k, ...(SYNONYMS[k] || [])].find((n) => n in old && old[n] !== "");
    if (same) { out[k] = old[same]; continue; }
    if (lo === null || hi === null || !(hi > lo)) continue;
    if (k === "low" || k === "min") { out[k] = fmtNum(lo); continue; }
    if (k === "high" || k === "max") { out[k] = fmtNum(hi); continue; }
    const log = family === "lognormal" && lo > 0;
    if (k === "median" || k === "mode" || k === "mean") out[k] = fmtNum(log ? Math.sqrt(lo * hi) : (lo + hi) / 2);
    else if (k === "sd") out[k] = fmtNum((hi - lo) / (2 * Z90));
    else if (k === "sigma" && lo > 0) out[k] = fmtNum(Math.log(hi / lo) / (2 * Z90));
  }
  return out;
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
        <div class="input-body"><div class="fields"></div><div class="picture"><svg class="pdf"></svg></div></div>
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
  const carried = keep ? carryOver(old, c.fields, c.name) : {};
  for (const k of c.fields) {
    const lab = document.createElement("label");
    lab.textContent = k;
    const e = document.createElement("input");
    e.type = "text"; e.dataset.field = k; e.name = inp.name + "." + k;
    if (k === "values" || k === "weights") e.className = "wide";
    let v = k in carried ? carried[k] : (!keep && k in inp.params ? inp.params[k] : (k in fam.optional ? fam.optional[k] : ""));
    e.value = Array.isArray(v) ? v.map(fmtNum).join(", ") : (v === "" || typeof v === "string" ? v : fmtNum(v));
    e.addEventListener("input", () => onEdit(inp.name));
    lab.appendChild(e);
    fieldsBox.appendChild(lab);
  }
}

// The fields an error names: its field, else those whose value is the number it quotes
// ("... and 1.5 is above its upper bound 1": the field holding 1.5).
function badFields(card, err) {
  if (err.field) return [...card.querySelectorAll(`input[data-field="${CSS.escape(err.field)}"]`)];
  const m = /(?:and |the value )(-?[\d.e+-]+) is (?:above|below)|the value (-?[\d.e+-]+) reaches/.exec(err.message || "");
  const v = m ? +(m[1] || m[2]) : NaN;
  return Number.isFinite(v) ? [...card.querySelectorAll("input[data-field]")].filter((e) => e.value.trim() !== "" && +e.value === v) : [];
}
