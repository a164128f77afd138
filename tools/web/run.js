// The Run view (run.html): draws what /api/run says about one training run and asks
// again every few seconds while the page is open. The run is chosen by its index among
// those the server was started with (?run=N in the address); the server reads the files.
import { api, toast } from "./api.js";
import { startLanguageMenu, tr, trn } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const SVG_NS = "http://www.w3.org/2000/svg";
const POLL_MS = 5000;
// Colours of the loss series, in the order they appear.
const PALETTE = ["#c0392b", "#2e86c1", "#27ae60", "#8e44ad", "#d68910", "#17a589",
                 "#7f8c8d", "#e84393", "#5d4037", "#34495e"];
// Metrics columns that are not losses: left out of the chart unless clicked on.
const NOT_LOSSES = new Set(["lr", "samples_per_s"]);

let runIndex = Number(new URLSearchParams(location.search).get("run") || 0);
let pollTimer = null;
const hiddenSeries = new Set(NOT_LOSSES);
let lastRun = null;

// A message stays longer than on the board page: the Run view is read, not played on.
const TOAST_MS = 8000;

// --- Talking to the server -----------------------------------------------------------

async function loadRuns() {
  const list = await api("GET", "/api/runs");
  const select = $("run");
  select.textContent = "";
  for (const r of list.runs) {
    const o = document.createElement("option");
    o.value = String(r.index);
    o.textContent = r.name;
    select.appendChild(o);
  }
  if (!list.runs.length) {
    $("summary").textContent = tr("This server watches no training run: start it with --run RUN_DIR.");
    return false;
  }
  if (!list.runs.some((r) => r.index === runIndex)) runIndex = list.runs[0].index;
  select.value = String(runIndex);
  select.addEventListener("change", () => {
    runIndex = Number(select.value);
    history.replaceState(null, "", "?run=" + runIndex);
    refresh();
  });
  return true;
}

async function refresh() {
  clearTimeout(pollTimer);
  try {
    const run = await api("GET", "/api/run?run=" + runIndex);
    lastRun = run;
    draw(run);
  } catch (e) {
    toast(e.message, TOAST_MS);
  }
  pollTimer = setTimeout(refresh, POLL_MS);
}

// --- Numbers and times ---------------------------------------------------------------

function fmtElo(v) {
  if (v === null || v === undefined) return "∞";
  const r = Math.round(v);
  return (r > 0 ? "+" : r < 0 ? "−" : "") + Math.abs(r);
}

function fmtInterval(lo, hi) {
  const low = lo === null || lo === undefined ? "−∞" : fmtElo(lo);
  const high = hi === null || hi === undefined ? "+∞" : fmtElo(hi);
  return "[" + low + ", " + high + "]";
}

function fmtRate(v) {
  return v === null || v === undefined ? "—" : Math.round(v).toLocaleString("en");
}

// How long ago `ms` was, seen from the server's `now`.
function ago(ms, now) {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 120) return trn("{n} second ago", "{n} seconds ago", s);
  const m = Math.round(s / 60);
  if (m < 120) return trn("{n} minute ago", "{n} minutes ago", m);
  const h = Math.round(m / 60);
  if (h < 48) return trn("{n} hour ago", "{n} hours ago", h);
  return trn("{n} day ago", "{n} days ago", Math.round(h / 24));
}

// --- Tables --------------------------------------------------------------------------

function fillTable(id, rows) {
  const body = $(id).querySelector("tbody");
  body.textContent = "";
  for (const cells of rows) {
    const tr_ = document.createElement("tr");
    for (const c of cells) {
      const td = document.createElement("td");
      if (c instanceof Node) td.appendChild(c);
      else td.textContent = c;
      tr_.appendChild(td);
    }
    body.appendChild(tr_);
  }
}

function badge(text, cls) {
  const s = document.createElement("span");
  s.className = "badge " + cls;
  s.textContent = text;
  return s;
}

// --- SVG charts ----------------------------------------------------------------------

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

// Round tick values covering [lo, hi], about `count` of them.
function ticks(lo, hi, count) {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / count;
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw);
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(+v.toPrecision(12));
  return out;
}

// Axes of a chart: returns {x, y} mapping data to the viewBox (640 x 300).
function axes(svg, xr, yr, xLabel, yLabel) {
  const W = 640, H = 300, L = 56, R = 24, T = 12, B = 40;
  const x = (v) => L + ((v - xr[0]) / (xr[1] - xr[0] || 1)) * (W - L - R);
  const y = (v) => T + (1 - (v - yr[0]) / (yr[1] - yr[0] || 1)) * (H - T - B);
  const g = el("g", { class: "axes" }, svg);
  for (const v of ticks(yr[0], yr[1], 5)) {
    el("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), class: "grid" }, g);
    el("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end" }, g).textContent = +v.toPrecision(4);
  }
  for (const v of ticks(xr[0], xr[1], 8)) {
    el("line", { x1: x(v), x2: x(v), y1: H - B, y2: H - B + 4, class: "tick" }, g);
    el("text", { x: x(v), y: H - B + 17, "text-anchor": "middle" }, g).textContent = +v.toPrecision(6);
  }
  el("line", { x1: L, x2: W - R, y1: H - B, y2: H - B, class: "axis" }, g);
  el("line", { x1: L, x2: L, y1: T, y2: H - B, class: "axis" }, g);
  el("text", { x: (L + W - R) / 2, y: H - 4, "text-anchor": "middle", class: "label" }, g).textContent = xLabel;
  el("text", { x: 14, y: (T + H - B) / 2, "text-anchor": "middle", class: "label",
               transform: `rotate(-90 14 ${(T + H - B) / 2})` }, g).textContent = yLabel;
  return { x, y, top: T, bottom: H - B };
}

function drawLadder(svg, ladder) {
  svg.textContent = "";
  if (!ladder.length) {
    el("text", { x: 320, y: 150, "text-anchor": "middle", class: "empty" }, svg).textContent =
      tr("No gate match yet.");
    return;
  }
  // The range covers every point and the finite ends of the intervals; an open end
  // runs to the edge.
  let lo = 0, hi = 0;
  for (const r of ladder)
    for (const v of [r.elo, r.elo_lo, r.elo_hi]) if (v !== null) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  const pad = (hi - lo) * 0.05 || 10;
  const gens = ladder.map((r) => r.generation);
  // Half a generation either side, so that the first and last intervals stay whole.
  const xr = [Math.min(...gens) - 0.5, Math.max(...gens) + 0.5];
  const a = axes(svg, xr, [lo - pad, hi + pad], tr("generation"), tr("Elo"));
  const chain = ladder.filter((r) => r.promoted || r.generation === 0);
  el("polyline", { class: "chain", points: chain.map((r) => `${a.x(r.generation)},${a.y(r.elo)}`).join(" ") }, svg);
  for (const r of ladder) {
    const g = el("g", { class: "rung" + (r.promoted ? " promoted" : "") + (r.best ? " best" : ""),
                        "data-name": r.name }, svg);
    const cx = a.x(r.generation);
    const top = r.elo_hi === null ? a.top : a.y(r.elo_hi);
    const bottom = r.elo_lo === null ? a.bottom : a.y(r.elo_lo);
    el("line", { x1: cx, x2: cx, y1: top, y2: bottom, class: "interval" }, g);
    for (const yy of [top, bottom]) el("line", { x1: cx - 4, x2: cx + 4, y1: yy, y2: yy, class: "interval" }, g);
    if (r.best) el("circle", { cx, cy: a.y(r.elo), r: 8, class: "ring" }, g);
    el("circle", { cx, cy: a.y(r.elo), r: 4.5, class: "point" }, g);
    el("title", {}, g).textContent = tr("{name}: Elo {elo} {interval}, {games} games",
      { name: r.name, elo: fmtElo(r.elo), interval: fmtInterval(r.elo_lo, r.elo_hi), games: r.games });
  }
}

function drawLosses(svg, legend, losses) {
  svg.textContent = "";
  legend.textContent = "";
  const names = losses ? Object.keys(losses.series) : [];
  if (!names.length) {
    el("text", { x: 320, y: 150, "text-anchor": "middle", class: "empty" }, svg).textContent =
      tr("No training metrics yet.");
    return;
  }
  const shown = names.filter((n) => !hiddenSeries.has(n));
  let xs = [], ys = [];
  for (const n of shown)
    for (const [s, v] of losses.series[n]) { xs.push(s); ys.push(v); }
  if (!xs.length) xs = [0, 1], ys = [0, 1];
  const xr = [Math.min(...xs), Math.max(...xs)];
  let yr = [Math.min(0, ...ys), Math.max(...ys)];
  if (yr[0] === yr[1]) yr = [yr[0] - 1, yr[1] + 1];
  const a = axes(svg, xr, yr, tr("training step"), tr("loss"));
  names.forEach((n, i) => {
    const colour = PALETTE[i % PALETTE.length];
    if (!hiddenSeries.has(n))
      el("polyline", { class: "series", "data-series": n, stroke: colour,
                       points: losses.series[n].map(([s, v]) => `${a.x(s).toFixed(1)},${a.y(v).toFixed(1)}`).join(" ") }, svg);
    const item = document.createElement("button");
    item.type = "button";
    item.className = "legend-item" + (hiddenSeries.has(n) ? " off" : "");
    item.innerHTML = '<span class="swatch"></span>';
    item.firstChild.style.background = colour;
    item.appendChild(document.createTextNode(n));
    item.addEventListener("click", () => {
      if (hiddenSeries.has(n)) hiddenSeries.delete(n);
      else hiddenSeries.add(n);
      drawLosses(svg, legend, losses);
    });
    legend.appendChild(item);
  });
}

// --- The view ------------------------------------------------------------------------

function draw(run) {
  const now = run.now_unix_ms;
  $("updated").textContent = tr("Read at {time}; it is read again every {seconds} seconds.",
    { time: new Date(now).toLocaleTimeString(), seconds: POLL_MS / 1000 });
  const promotions = run.gates.filter((g) => g.pass).length;
  $("summary").textContent = tr(
    "Run {name}: {gates} gate matches, {promotions} promoted, best model {best}; {games} self-play games in {shards} shards.",
    { name: run.name, gates: run.gates.length, promotions, best: run.best,
      games: run.selfplay.games.toLocaleString("en"), shards: run.selfplay.shards.toLocaleString("en") });

  const k = run.skipped;
  const total = k.gate_records + k.metrics_lines + k.shards + k.models;
  $("skipped").hidden = total === 0;
  $("skipped").textContent = tr(
    "Skipped as unreadable: {gates} gate records, {lines} metrics lines, {shards} shards, {models} models.",
    { gates: k.gate_records, lines: k.metrics_lines, shards: k.shards, models: k.models });
  const problems = $("problems");
  problems.textContent = "";
  for (const p of run.problems) {
    const li = document.createElement("li");
    li.textContent = p;
    problems.appendChild(li);
  }

  drawLadder($("ladder-chart"), run.ladder);
  fillTable("ladder-table", run.ladder.slice().reverse().map((r) => [
    r.name, fmtElo(r.elo), r.generation === 0 ? tr("anchor") : fmtInterval(r.elo_lo, r.elo_hi), r.games,
    r.best ? badge(tr("best"), "best") : r.promoted ? badge(tr("promoted"), "pass") : "",
  ]));
  fillTable("gates-table", run.gates.slice().reverse().map((g) => [
    g.candidate, g.baseline, `${g.wins}-${g.draws}-${g.losses}`, fmtElo(g.elo),
    fmtInterval(g.elo_lo, g.elo_hi), g.pass ? badge(tr("passed"), "pass") : badge(tr("failed"), "fail"),
  ]));

  drawLosses($("loss-chart"), $("loss-legend"), run.losses);

  const sp = run.selfplay;
  $("selfplay").textContent = tr("{games} games, {rows} positions, {workers} workers.", {
    games: sp.games.toLocaleString("en"), rows: sp.rows.toLocaleString("en"), workers: run.workers.length });
  fillTable("workers-table", run.workers.map((w) => [
    w.worker, w.games.toLocaleString("en"), fmtRate(w.games_per_hour), fmtRate(w.recent_games_per_hour),
    ago(w.last_unix_ms, now),
  ]));

  // Each row: its label in the reader's language and the model's field it shows
  // ("network" and "heads" are put together from several fields).
  const rows = [
    [tr("file"), "file"], [tr("generation"), "generation"], [tr("training steps"), "training_steps"],
    [tr("game"), "game"], [tr("network"), "network"], [tr("heads"), "heads"],
    [tr("weights checksum"), "weights_checksum"], [tr("created"), "created"], [tr("note"), "note"],
  ];
  const cell = (m, key) => {
    if (!m) return "—";
    if (key === "network") return tr("{channels} channels, {blocks} blocks", m);
    if (key === "heads") {
      const heads = [];
      if (m.opponent_policy_head) heads.push(tr("opponent policy"));
      if (m.score_distribution_head) heads.push(tr("score distribution"));
      return heads.length ? heads.join(", ") : tr("policy and value only");
    }
    return String(m[key]);
  };
  fillTable("models-table", rows.map(([label, key]) => [
    label, cell(run.models.best, key), cell(run.models.newest, key),
  ]));
}

// In the language the board page chose (the same localStorage key), else the browser's.
(async () => {
  try {
    await startLanguageMenu(() => {
      document.title = tr("KumalakZero: training run");
      if (lastRun) draw(lastRun);
    });
    document.title = tr("KumalakZero: training run");
    if (await loadRuns()) refresh();
  } catch (e) {
    toast(e.message, TOAST_MS);
  }
})();
