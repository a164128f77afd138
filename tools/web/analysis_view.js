// The analysis of the game view: the chart of White's (South's) expected score after
// each move with the marked mistakes, each side's summary and estimated rating, and the
// list of marks, from the state's `analysis` (docs/serve.md). A click on the chart or a
// mark shows that position.
import { keepNumbersWithEndings, tr, trn } from "./i18n.js";
import { levelTitle, markSymbol, markTitle, sideTitle } from "./game_words.js";

// Draws the analysis of the state `s` into #analysis; `reviewPly`: the ply the board
// shows while reviewing (a red line on the chart), null otherwise; showPly(ply) is called
// with the ply a click asks for.
export function drawAnalysis(s, reviewPly, showPly) {
  const box = document.getElementById("analysis");
  const a = s.analysis;
  if (!a) {
    const p = document.createElement("p");
    p.className = "muted";
    p.textContent = tr("Play or load a game, then “Analyse the game”.");
    box.replaceChildren(p);
    return;
  }
  const W = 340, H = 160, pad = 22;
  const n = Math.max(a.total, 1);
  const x = (ply) => pad + ((W - 2 * pad) * ply) / n;
  const y = (v) => H - pad - (H - 2 * pad) * v;
  const svgNS = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(svgNS, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("id", "analysis-chart");
  const add = (tag, attrs, text) => {
    const e = document.createElementNS(svgNS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    svg.append(e);
    return e;
  };
  add("rect", { x: pad, y: y(1), width: W - 2 * pad, height: y(0.5) - y(1), fill: "#f7f7f7" });
  add("rect", { x: pad, y: y(0.5), width: W - 2 * pad, height: y(0) - y(0.5), fill: "#3a3a3a", "fill-opacity": 0.12 });
  add("line", { x1: pad, x2: W - pad, y1: y(0.5), y2: y(0.5), stroke: "#999", "stroke-dasharray": "3 3" });
  add("text", { x: 2, y: y(1) + 4, "font-size": 9 }, "100%");
  add("text", { x: 2, y: y(0.5) + 3, "font-size": 9 }, "50%");
  add("text", { x: 2, y: y(0) + 3, "font-size": 9 }, "0%");
  add("text", { x: W - pad, y: H - 6, "font-size": 9, "text-anchor": "end" }, tr("ply {ply}", { ply: a.total }));
  add("text", { x: pad + 2, y: 10, "font-size": 9 }, s.togyz ? tr("White's expected score after each move")
    : tr("South's expected score after each move"));
  let path = `M ${x(0)} ${y(0.5)}`;
  a.plies.forEach((p) => (path += ` L ${x(p.ply)} ${y(p.white_score)}`));
  add("path", { d: path, fill: "none", stroke: "#2b6cb0", "stroke-width": 1.6 });
  const colors = { inaccuracy: "#e0b000", mistake: "#e67e22", blunder: "#c0392b" };
  for (const p of a.plies) {
    if (!p.mark) continue;
    const c = add("circle", { cx: x(p.ply), cy: y(p.white_score), r: p.mark === "blunder" ? 4.5 : 3.5, fill: colors[p.mark], class: "mark " + p.mark });
    const t = document.createElementNS(svgNS, "title");
    const q = { ply: p.ply, move: p.notation, symbol: markSymbol[p.mark], mark: markTitle(p.mark),
                drop: Math.round(100 * p.drop), best: p.best };
    t.textContent = p.best ? tr("{ply}. {move} {symbol} {mark} (-{drop}%), engine: {best}", q)
      : tr("{ply}. {move} {symbol} {mark} (-{drop}%)", q);
    c.append(t);
  }
  if (reviewPly !== null) add("line", { x1: x(reviewPly), x2: x(reviewPly), y1: y(1), y2: y(0), stroke: "#c00" });
  svg.addEventListener("click", (ev) => {
    const r = svg.getBoundingClientRect();
    const px = ((ev.clientX - r.left) / r.width) * W;
    const ply = Math.round(((px - pad) / (W - 2 * pad)) * n);
    showPly(Math.max(0, Math.min(a.plies.length, ply)));
  });
  const head = document.createElement("p");
  head.className = "small";
  head.textContent = a.complete
    ? trn("{engine} ({level}) judged all {n} ply. Tap the chart to see a position.",
          "{engine} ({level}) judged all {n} plies. Tap the chart to see a position.", a.total,
          // The program's name, not the search's internal one ("mcts-hard").
          { engine: "KumalakZero", level: levelTitle(a.level) })
    : tr("Judging ply {ply} of {total} ({level})…", { ply: a.done + 1, total: a.total, level: levelTitle(a.level) });
  const summary = document.createElement("div");
  summary.className = "summary";
  summary.textContent = keepNumbersWithEndings(
    `${sideTitle(s, 0)}: ${a.summary[0].trim()}\n${sideTitle(s, 1)}: ${a.summary[1].trim()}\n${a.thresholds}`);
  // Each side's rating as the human model estimates it from the moves (Togyz).
  const playedLike = [];
  (a.played_like || []).forEach((like, p) => {
    if (!like) return;
    const el = document.createElement("p");
    el.className = "played-like small";
    el.textContent = tr("{side} played like a {rating} [{low}, {high}].",
      { side: sideTitle(s, p), rating: like.rating, low: like.low, high: like.high });
    playedLike.push(el);
  });
  const marks = document.createElement("ul");
  marks.className = "small";
  for (const p of a.plies) {
    if (!p.mark) continue;
    const li = document.createElement("li");
    li.className = "mark-" + p.mark;
    const q = { ply: p.ply, move: p.notation, symbol: markSymbol[p.mark], mark: markTitle(p.mark), best: p.best };
    li.textContent = p.best ? tr("{ply}. {move} {symbol} {mark}; engine: {best}", q)
      : tr("{ply}. {move} {symbol} {mark}", q);
    li.style.cursor = "pointer";
    li.addEventListener("click", () => showPly(p.ply));
    marks.append(li);
  }
  box.replaceChildren(head, svg, summary, ...playedLike, marks);
  // Once every move is judged, the player's mistakes can be tried as puzzles (puzzles.js
  // listens for the event and shows them in place of the game).
  if (a.complete) {
    const learn = document.createElement("button");
    learn.type = "button";
    learn.id = "analysis-mistakes";
    learn.textContent = tr("Learn from your mistakes");
    learn.addEventListener("click", () => document.dispatchEvent(new CustomEvent("kz-learn-mistakes")));
    box.append(learn);
  }
}
