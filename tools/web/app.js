// The page of `kumalak serve`. Everything about the games (rules, legal moves, notation,
// the engine) comes from the server's JSON API (docs/serve.md); this file only draws
// what the server says and sends what the person clicks. Each browser tab keeps its
// own game: the session id lives in sessionStorage.
"use strict";

const $ = (id) => document.getElementById(id);
let session = sessionStorage.getItem("kz-session");
let state = null;        // the last state from the server
let review = null;       // {ply, board, last} while looking at an earlier position
let pollTimer = null;
let shownPits = null;    // the pits last drawn, to flash the ones that changed
let hintedPit = 0;       // the hole a hint under the pointer points at
let ratingRanges = {};   // per game: the human model's {min, max} (levels by rating), or null

// --- Talking to the server -----------------------------------------------------------

async function api(method, path, body) {
  // The server says the hints' reasons in the language of the page's menu.
  const opts = { method, headers: { "Accept-Language": i18nState.lang } };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const res = await fetch(path, opts);
  const data = await res.json().catch(() => ({ error: res.statusText }));
  if (!res.ok) {
    const err = new Error(data.error || res.statusText);
    err.status = res.status;
    throw err;
  }
  return data;
}

function toast(message) {
  const t = $("toast");
  t.textContent = message;
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (t.hidden = true), 5000);
}

async function act(method, path, body) {
  try {
    const s = await api(method, path, body);
    if (s && s.session) setState(s);
    return s;
  } catch (e) {
    if (e.status === 404 && session) {  // the session expired: start afresh
      sessionStorage.removeItem("kz-session");
      session = null;
      await newGame();
    }
    toast(e.message);
    return null;
  }
}

function setState(s) {
  session = s.session;
  sessionStorage.setItem("kz-session", session);
  const sown = state && state.session === s.session && s.moves.length > state.moves.length;
  state = s;
  render();
  if (sown && !review) animateSowing(s, s.moves[s.moves.length - 1]);
  clearTimeout(pollTimer);
  if (s.engine.task) pollTimer = setTimeout(poll, 300);
}

async function poll() {
  try {
    setState(await api("GET", `/api/state?session=${encodeURIComponent(session)}`));
  } catch (e) {
    toast(e.message);
  }
}

// --- Settings --------------------------------------------------------------------------

function gameName() {
  const g = $("game").value;
  if (g !== "custom") return g;
  return `kalah:${$("pits").value},${$("seeds").value}` + ($("empty-capture").checked ? ",empty" : "");
}

function humanValue(game) {
  const v = $("human").value;
  if (v === "both") return "both";
  const togyz = game === "togyz";
  return v === "0" ? (togyz ? "white" : "south") : (togyz ? "black" : "north");
}

async function newGame(position) {
  review = null;
  shownPits = null;
  const game = gameName();
  const body = { game, level: $("level").value, human: humanValue(game) };
  if (session) body.session = session;
  if (position) body.position = position;
  await act("POST", "/api/new", body);
}

// The levels named by a PlayOK rating, after the named ones in the Level menu: the human
// model's range a hundred apart, for the games that have a human model (Togyz).
const ratingStep = 100;
function fillRatingOptions() {
  const menu = $("level");
  const chosen = menu.value;
  for (const o of [...menu.options]) if (/^\d+$/.test(o.value)) o.remove();
  const range = ratingRanges[$("game").value];
  if (range) {
    for (let r = range.min; r <= range.max; r += ratingStep) {
      const o = document.createElement("option");
      o.value = String(r);
      o.textContent = tr("like a player rated {rating}", { rating: r });
      menu.append(o);
    }
  }
  menu.value = chosen;
  if (!menu.value) menu.value = "medium";  // a rating of a game that has none
}

let syncedSettings = "";
// Shows the game's settings in the form, only when they changed (so that a poll does not
// undo what the person is choosing for the next game).
function syncSettings(s) {
  const key = `${s.session}|${s.game}|${s.level}|${s.human}`;
  if (key === syncedSettings) return;
  syncedSettings = key;
  const known = ["togyz", "kalah:6,4", "kalah:5,4,empty"];
  const values = ["togyz", "kalah", "bantumi"];
  const k = known.indexOf(s.game);
  if (k >= 0) $("game").value = values[k];
  else {
    $("game").value = "custom";
    const m = /^kalah:(\d+),(\d+)(,empty)?$/.exec(s.game);
    if (m) {
      $("pits").value = m[1];
      $("seeds").value = m[2];
      $("empty-capture").checked = !!m[3];
    }
  }
  $("custom-size").hidden = $("game").value !== "custom";
  fillRatingOptions();
  if (/^\d+$/.test(s.level) && ![...$("level").options].some((o) => o.value === s.level)) {
    const o = document.createElement("option");  // a rating between the menu's hundreds
    o.value = s.level;
    o.textContent = tr("like a player rated {rating}", { rating: s.level });
    $("level").append(o);
  }
  $("level").value = s.level;
  $("human").value = s.human === "both" ? "both" : s.sides.indexOf(s.human) === 1 ? "1" : "0";
}

// --- Drawing ---------------------------------------------------------------------------

function sideTitle(s, p) {
  const side = s.sides[p];
  return side === "white" ? tr("White") : side === "black" ? tr("Black")
    : side === "south" ? tr("South") : side === "north" ? tr("North") : side;
}
// The level names the server uses, as the menus show them.
function levelTitle(level) {
  if (/^\d+$/.test(level)) return tr("like a player rated {rating}", { rating: level });
  return { beginner: tr("beginner"), easy: tr("easy"), medium: tr("medium"), hard: tr("hard"),
           expert: tr("expert") }[level] || level;
}
const pct = (x) => `${Math.round(100 * x)}%`;
const signed = (x) => (x >= 0 ? "+" : "") + x.toFixed(1);

function humanSide(s) {
  return s.human === "both" ? -1 : s.sides.indexOf(s.human);
}

function canPlay(s) {
  if (review || s.board.decided || s.engine.task === "move") return false;
  const h = humanSide(s);
  return h < 0 || h === s.board.to_move;
}

function render() {
  const s = state;
  if (!s) return;
  syncSettings(s);
  const view = review ? review : { board: s.board, last: s.moves[s.moves.length - 1] };
  drawBoard(s, view.board, view.last);
  drawStatus(s);
  drawThinking(s);
  drawHint(s);
  drawMoves(s);
  drawAnalysis(s);
  $("position").value = view.board.position;
  $("review-bar").hidden = !review;
  if (review) {
    const m = review.last;
    $("review-text").textContent = review.ply === 0
      ? tr("Looking at the start position.")
      : tr("Looking at the position after ply {ply} ({move} by {side}).",
           { ply: review.ply, move: m.notation, side: sideTitle(s, m.mover) });
  }
  const busy = !!s.engine.task;
  $("undo").disabled = s.moves.length === 0;
  $("hint").disabled = busy || s.board.decided || !!review;
  $("analyze").disabled = busy || s.moves.length === 0;
  $("stop").disabled = !(s.engine.task === "hint" || s.engine.task === "analysis");
}

function drawBoard(s, b, last) {
  const changedKey = review ? null : JSON.stringify(b.pits);
  const flash = shownPits && changedKey !== shownPits.key && !review;
  const grid = boardGrid(b, {
    togyz: s.togyz,
    npits: s.npits,
    bottom: humanSide(s) === 1 ? 1 : 0,
    side: (p) => sideTitle(s, p),
    storeLabel: (p) => {
      const side = sideTitle(s, p);
      return humanSide(s) === p ? tr("{side} (you)", { side })
        : humanSide(s) >= 0 ? tr("{side} (engine)", { side }) : side;
    },
    markToMove: true,
    play: !review && canPlay(s) ? play : null,
    last,
    changed: (p, i) => flash && shownPits.pits[p][i] !== b.pits[p][i],
    hinted: (p, i) => hintedPit && !review && p === b.to_move && hintedPit === i + 1,
  });
  $("board").replaceChildren(grid);
  if (!review) shownPits = { key: changedKey, pits: b.pits };
  $("legend").innerHTML = "";
  const legend = [["var(--from)", tr("last move started here")],
    ["var(--land)", s.togyz ? tr("its last stone landed here") : tr("its last seed landed here")]];
  if (s.togyz) legend.push(["var(--tuzdyk)", tr("tuzdyk")]);
  for (const [color, text] of legend) {
    const sw = document.createElement("span");
    sw.className = "swatch";
    sw.style.background = color;
    $("legend").append(sw, document.createTextNode(text));
  }
}

// One whole sentence for each thing a move can do (no pieces glued in any language).
function describeMove(s, mv) {
  const p = { side: sideTitle(s, mv.mover), move: mv.notation, n: mv.captured };
  if (mv.tuzdyk) return mv.extra_turn ? tr("{side} played {move}, making a tuzdyk, and moves again.", p)
    : tr("{side} played {move}, making a tuzdyk.", p);
  if (mv.captured) return mv.extra_turn
    ? trn("{side} played {move}, capturing {n}, and moves again.", "{side} played {move}, capturing {n}, and moves again.", mv.captured, p)
    : trn("{side} played {move}, capturing {n}.", "{side} played {move}, capturing {n}.", mv.captured, p);
  return mv.extra_turn ? tr("{side} played {move}, and moves again.", p) : tr("{side} played {move}.", p);
}

function drawStatus(s) {
  const b = s.board;
  const last = s.moves[s.moves.length - 1];
  const parts = last ? [describeMove(s, last)] : [];
  const h = humanSide(s);
  if (b.decided) {
    const [w, k] = b.stores;
    const p = { white: sideTitle(s, 0), w, black: sideTitle(s, 1), b: k, result: b.result };
    if (h >= 0 && b.result !== "1/2-1/2")
      parts.push((b.result === "1-0") === (h === 0)
        ? tr("Game over: {white} {w}, {black} {b} ({result}) — you win!", p)
        : tr("Game over: {white} {w}, {black} {b} ({result}) — the engine wins.", p));
    else parts.push(tr("Game over: {white} {w}, {black} {b} ({result})", p));
  } else if (s.engine.task === "move") {
    parts.push(tr("{side} (engine, {level}) is thinking…", { side: sideTitle(s, b.to_move), level: levelTitle(s.level) }));
  } else if (h < 0 || h === b.to_move) {
    parts.push(s.togyz ? tr("{side} to move: tap a hole.", { side: sideTitle(s, b.to_move) })
      : tr("{side} to move: tap a pit.", { side: sideTitle(s, b.to_move) }));
  }
  if (s.engine_failed) parts.push(s.message);
  const text = parts.join(" ");
  $("status").textContent = text;
}

function drawThinking(s) {
  const e = s.engine;
  const el = $("thinking");
  if (!e.task) {
    el.textContent = "";
    return;
  }
  const what = { move: tr("Engine move"), hint: tr("Hint"), analysis: tr("Analysis") }[e.task];
  if (!e.running) {
    el.textContent = e.queue_ahead
      ? trn("{what}: queued ({n} ahead)…", "{what}: queued ({n} ahead)…", e.queue_ahead, { what })
      : tr("{what}: queued…", { what });
    return;
  }
  const p = e.progress;
  if (!p || e.task === "analysis") {
    el.textContent = tr("{what}: thinking…", { what });
    return;
  }
  const q = { what, engine: e.name, nodes: p.nodes, depth: p.depth, seconds: p.seconds.toFixed(1),
              win: pct(p.win), margin: signed(p.margin), line: p.pv.join(" ") };
  el.textContent = e.name && e.name.startsWith("mcts")
    ? tr("{what} ({engine}): {nodes} visits, {seconds} s, win {win}, margin {margin}; best line {line}", q)
    : tr("{what} ({engine}): depth {depth}, {nodes} nodes, {seconds} s, win {win}, margin {margin}; best line {line}", q);
}

function drawHint(s) {
  const box = $("hint-box");
  box.replaceChildren();
  if (!s.hint || review) return;
  const h = s.hint;
  const head = document.createElement("p");
  const hp = { side: sideTitle(s, s.sides.indexOf(h.side)), engine: h.engine, nodes: h.nodes };
  head.textContent = h.engine.startsWith("mcts")
    ? tr("Best moves for {side} ({engine}, {nodes} visits):", hp)
    : tr("Best moves for {side} ({engine}, {nodes} nodes):", hp);
  const list = document.createElement("ol");
  list.className = "hints";
  for (const mv of h.moves) {
    const li = document.createElement("li");
    const title = document.createElement("span");
    title.className = "hint-move";
    title.textContent = s.togyz ? tr("hole {hole} ({notation})", { hole: mv.move, notation: mv.notation })
      : tr("pit {pit}", { pit: mv.move });
    const proven = mv.margin_exact ? " " + tr("(proven {margin})", { margin: (mv.margin > 0 ? "+" : "") + Math.round(mv.margin) })
      : mv.proven ? " " + tr("(proven)") : "";
    const nums = document.createTextNode("  " + tr("win {win}, draw {draw}, margin {margin}",
      { win: pct(mv.win), draw: pct(mv.draw), margin: signed(mv.margin) }) + proven);
    const reason = document.createElement("div");
    reason.className = "hint-reason";
    reason.textContent = mv.reason;
    const line = document.createElement("div");
    line.className = "hint-line";
    line.textContent = tr("expected line: {line}", { line: mv.line.join(" ") });
    li.append(title, nums, reason, line);
    li.addEventListener("mouseenter", () => markHinted(mv.move));
    li.addEventListener("mouseleave", () => markHinted(0));
    list.append(li);
  }
  box.append(head, list);
  // At a rating level: what most players of that rating play here, beside the engine.
  if (h.human && h.human.moves.length && h.moves.length) {
    const human = document.createElement("p");
    human.className = "hint-human";
    human.textContent = tr("Most players at {rating} play {move} here; the engine's best is {best}.",
      { rating: h.human.rating, move: h.human.moves[0].notation, best: h.moves[0].notation });
    box.append(human);
  }
}

// --- Sowing animation ------------------------------------------------------------------
// After a move the board already shows the new position; a light then runs from the hole
// the move started in, hole by hole round the board, to where its last stone landed, so
// that the eye can follow the sowing. A tap on the board skips it; it is off when the
// reader asks for reduced motion.
let sowTimers = [];
const reducedMotion = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)");

function stopSowing() {
  sowTimers.forEach(clearTimeout);
  sowTimers = [];
  for (const el of document.querySelectorAll("#board .sowing")) el.classList.remove("sowing");
}

// The places a move's stones pass through, in order: the mover's holes from the one it
// started in, (Kalah: the mover's store), the opponent's holes, round again.
function sowingPath(s, mv) {
  const m = s.npits, me = mv.mover, them = me ^ 1;
  const ring = [];
  for (let k = 1; k <= m; ++k) ring.push(`.pit[data-player="${me}"][data-pit="${k}"]`);
  if (!s.togyz) ring.push(`.store[data-store="${me}"]`);
  for (let k = 1; k <= m; ++k) ring.push(`.pit[data-player="${them}"][data-pit="${k}"]`);
  const [lp, lk] = mv.landing;
  const target = lp === -1 ? m : lp === me ? lk - 1 : (s.togyz ? m : m + 1) + lk - 1;
  const path = [];
  for (let i = mv.pit - 1, n = 0; n <= ring.length; i = (i + 1) % ring.length, ++n) {
    path.push(ring[i]);
    if (i === target && n > 0) break;
  }
  return path;
}

function animateSowing(s, mv) {
  stopSowing();
  if (!mv || !mv.landing || (reducedMotion && reducedMotion.matches)) return;
  const path = sowingPath(s, mv);
  const step = Math.min(90, 1400 / path.length);
  path.forEach((sel, n) => {
    sowTimers.push(setTimeout(() => {
      for (const el of document.querySelectorAll("#board .sowing")) el.classList.remove("sowing");
      const el = document.querySelector("#board " + sel);
      if (el) el.classList.add("sowing");
    }, n * step));
  });
  sowTimers.push(setTimeout(stopSowing, path.length * step + 120));
}

// Outlines the hole a hint is about while the pointer is on it.
function markHinted(pit) {
  hintedPit = pit;
  for (const el of document.querySelectorAll("#board .pit")) {
    const on = pit && Number(el.dataset.player) === state.board.to_move && Number(el.dataset.pit) === pit;
    el.classList.toggle("hinted", !!on);
  }
}

const markSymbol = { inaccuracy: "?!", mistake: "?", blunder: "??" };
const markTitle = (mark) => ({ inaccuracy: tr("inaccuracy"), mistake: tr("mistake"), blunder: tr("blunder") }[mark] || mark);

function drawMoves(s) {
  const ol = $("moves");
  ol.replaceChildren();
  const plies = s.analysis ? s.analysis.plies : [];
  s.moves.forEach((mv, i) => {
    const li = document.createElement("li");
    const a = plies[i];
    li.textContent = `${i + 1}. ${mv.notation}` + (a && a.mark ? " " + markSymbol[a.mark] : "");
    if (a && a.mark) li.className = "mark-" + a.mark;
    if (review && review.ply === i + 1) li.classList.add("current");
    li.title = `${sideTitle(s, mv.mover)}: ${mv.notation}` + (a ? ` — ${a.comment}` : "");
    li.addEventListener("click", () => showPly(i + 1));
    ol.append(li);
  });
  ol.scrollTop = ol.scrollHeight;
}

function drawAnalysis(s) {
  const box = $("analysis");
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
  if (review) add("line", { x1: x(review.ply), x2: x(review.ply), y1: y(1), y2: y(0), stroke: "#c00" });
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
          { engine: a.engine || tr("engine"), level: levelTitle(a.level) })
    : tr("Judging ply {ply} of {total} ({level})…", { ply: a.done + 1, total: a.total, level: levelTitle(a.level) });
  const summary = document.createElement("div");
  summary.className = "summary";
  summary.textContent = `${sideTitle(s, 0)}: ${a.summary[0].trim()}\n${sideTitle(s, 1)}: ${a.summary[1].trim()}\n${a.thresholds}`;
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
}

// --- Actions ---------------------------------------------------------------------------

async function play(pit) {
  hintedPit = 0;
  await act("POST", "/api/move", { session, move: pit });
}

async function showPly(ply) {
  try {
    const r = await api("GET", `/api/board?session=${encodeURIComponent(session)}&ply=${ply}`);
    review = r.ply === state.moves.length ? null : r;
    render();
  } catch (e) {
    toast(e.message);
  }
}

async function save() {
  try {
    // The analysis' comments in the record come in the page's language.
    const res = await fetch(`/api/record?session=${encodeURIComponent(session)}`,
                            { headers: { "Accept-Language": i18nState.lang } });
    if (!res.ok) throw new Error((await res.json()).error);
    const blob = new Blob([await res.text()], { type: "text/plain" });
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = `kumalak-${state.game.replace(/[:,]/g, "-")}.pgn`;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  } catch (e) {
    toast(e.message);
  }
}

async function load(file) {
  if (!file) return;
  if (file.size > 200 * 1024) {
    toast(tr("That file is too large for a game record."));
    return;
  }
  const text = await file.text();
  review = null;
  shownPits = null;
  const s = await act("POST", "/api/load", { session, pgn: text });
  if (s) toast(trn("Loaded {n} ply. Both sides are yours; “Analyse the game” judges every move.",
                   "Loaded {n} plies. Both sides are yours; “Analyse the game” judges every move.", s.moves.length));
}

$("setup").addEventListener("submit", (e) => {
  e.preventDefault();
  newGame();
});
$("game").addEventListener("change", () => {
  $("custom-size").hidden = $("game").value !== "custom";
  fillRatingOptions();
});
$("position-form").addEventListener("submit", (e) => {
  e.preventDefault();
  newGame($("position").value.trim());
});
$("undo").addEventListener("click", () => {
  review = null;
  act("POST", "/api/undo", { session });
});
$("hint").addEventListener("click", () => act("POST", "/api/hint", { session, level: $("hint-level").value }));
$("stop").addEventListener("click", () => act("POST", "/api/stop", { session }));
$("analyze").addEventListener("click", () => act("POST", "/api/analyze", { session, level: $("hint-level").value }));
$("save").addEventListener("click", save);
$("board").addEventListener("pointerdown", stopSowing);
$("load").addEventListener("change", (e) => {
  load(e.target.files[0]);
  e.target.value = "";
});
$("review-back").addEventListener("click", () => {
  review = null;
  render();
});
$("review-play").addEventListener("click", async () => {
  const ply = review.ply;
  review = null;
  await act("POST", "/api/undo", { session, ply });
});

// The Run view is linked only when the server watches training runs (serve --run); the
// rating levels are offered for the games with a human model.
const infoReady = api("GET", "/api/info").then((info) => {
  $("run-link").hidden = !(info.runs > 0);
  ratingRanges = info.ratings || {};
  fillRatingOptions();
}, () => {});

const languageReady = startLanguageMenu(async () => {
  fillRatingOptions();
  // Ask again so that the server says the hint's reasons in the new language.
  if (session) await poll();
  else render();
});

// Resume this tab's game, or start one, in the reader's language.
(async () => {
  await languageReady;
  await infoReady;
  if (session) {
    try {
      setState(await api("GET", `/api/state?session=${encodeURIComponent(session)}`));
      return;
    } catch (e) {
      sessionStorage.removeItem("kz-session");
      session = null;
    }
  }
  await newGame();
})();
