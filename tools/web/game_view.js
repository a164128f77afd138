// The game view of the board page: the board with the last move and the flashing holes,
// the status line, the engine's progress, the hint box and the move list, drawn from the
// server's state (docs/serve.md) by game.js. What the view itself remembers is here: the
// pits last drawn (to flash the ones that changed) and the hole a hint points at
// points at.
import { boardGrid } from "./board.js";
import { keepNumbersWithEndings, tr, trn } from "./i18n.js";
import { describeMove, engineTitle, levelTitle, markSymbol, pct, sideTitle, signed } from "./game_words.js";

const $ = (id) => document.getElementById(id);
let shownPits = null;  // the pits last drawn, to flash the ones that changed
let hintedPit = 0;     // the hole the hint's chosen move starts from

// The person's side in the state `s` (0 or 1), -1 when people play both.
export function humanSide(s) {
  return s.human === "both" ? -1 : s.sides.indexOf(s.human);
}

// The next board drawn is a new game's: nothing flashes.
export function forgetShownPits() {
  shownPits = null;
}

// A move was played: the hint's outline goes.
export function clearHinted() {
  hintedPit = 0;
}

// Draws the board `b` of the state `s` into #board with its legend; `last`: the move
// that led to it (marked); `reviewing`: an earlier position is shown (nothing flashes or
// is outlined); `play(pit)`: what a click on a playable hole does, null when the person
// cannot play now.
export function drawBoard(s, b, last, reviewing, play) {
  const changedKey = reviewing ? null : JSON.stringify(b.pits);
  const flash = shownPits && changedKey !== shownPits.key && !reviewing;
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
    play,
    last,
    changed: (p, i) => flash && shownPits.pits[p][i] !== b.pits[p][i],
    hinted: (p, i) => hintedPit && !reviewing && p === b.to_move && hintedPit === i + 1,
  });
  $("board").replaceChildren(grid);
  if (!reviewing) shownPits = { key: changedKey, pits: b.pits };
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

// The status line: what the last move did, and who moves now or how the game ended.
export function drawStatus(s) {
  const b = s.board;
  const last = s.moves[s.moves.length - 1];
  const parts = last ? [describeMove(s, last)] : [];
  const h = humanSide(s);
  if (s.clock && s.clock.flagged >= 0) {
    parts.push(s.clock.reason);  // the game ended on time, in the server's words
  } else if (b.decided) {
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
  $("status").textContent = keepNumbersWithEndings(parts.join(" "));
}

// The engine's task in progress, under the board.
export function drawThinking(s) {
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
  const q = { what, engine: engineTitle(e.name), nodes: p.nodes, depth: p.depth, seconds: p.seconds.toFixed(1),
              win: pct(p.win), margin: signed(p.margin), line: p.pv.join(" ") };
  el.textContent = e.name && e.name.startsWith("mcts")
    ? tr("{what} ({engine}): {nodes} visits, {seconds} s, win {win}, margin {margin}; best line {line}", q)
    : tr("{what} ({engine}): depth {depth}, {nodes} nodes, {seconds} s, win {win}, margin {margin}; best line {line}", q);
}

// The hint's best moves for the side to move, each with its numbers, reason and line;
// nothing while `reviewing`.
export function drawHint(s, reviewing) {
  const box = $("hint-box");
  box.replaceChildren();
  if (!s.hint || reviewing) return;
  const h = s.hint;
  const head = document.createElement("p");
  // The level in the player's words (the engine's internal name stays out), and the order
  // said: the engine's choice is the move it searched most, which need not be the one
  // with the highest win share.
  const hp = { side: sideTitle(s, s.sides.indexOf(h.side)), level: tr(h.level), nodes: h.nodes };
  head.textContent = h.engine.startsWith("mcts")
    ? tr("Best moves for {side}, the one the engine searched most first (level {level}, {nodes} visits):", hp)
    : tr("Best moves for {side}, best first (level {level}, {nodes} positions searched):", hp);
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
    reason.textContent = keepNumbersWithEndings(mv.reason);
    const line = document.createElement("div");
    line.className = "hint-line";
    line.textContent = tr("expected line: {line}", { line: mv.line.join(" ") });
    li.append(title, nums, reason, line);
    // The hole of the move pointed at, touched or tapped is outlined; the best one until then.
    const mark = () => markHinted(mv.move, s.board.to_move);
    li.addEventListener("mouseenter", mark);
    li.addEventListener("click", mark);
    li.addEventListener("focus", mark);
    li.tabIndex = 0;
    list.append(li);
  }
  box.append(head, list);
  if (h.moves.length) markHinted(h.moves[0].move, s.board.to_move);
  // At a rating level: what most players of that rating play here, beside the engine.
  if (h.human && h.human.moves.length && h.moves.length) {
    const human = document.createElement("p");
    human.className = "hint-human";
    human.textContent = tr("Most players at {rating} play {move} here; the engine's best is {best}.",
      { rating: h.human.rating, move: h.human.moves[0].notation, best: h.moves[0].notation });
    box.append(human);
  }
}

// Outlines the hole a hint is about (its best move's, or the one chosen in the list).
function markHinted(pit, toMove) {
  hintedPit = pit;
  for (const el of document.querySelectorAll("#board .pit")) {
    const on = pit && Number(el.dataset.player) === toMove && Number(el.dataset.pit) === pit;
    el.classList.toggle("hinted", !!on);
  }
}

// The moves of the game, with the analysis' marks; `reviewPly`: the ply shown while
// reviewing (null otherwise); a click calls showPly with the move's ply.
export function drawMoves(s, reviewPly, showPly) {
  const ol = $("moves");
  ol.replaceChildren();
  const plies = s.analysis ? s.analysis.plies : [];
  s.moves.forEach((mv, i) => {
    const li = document.createElement("li");
    const a = plies[i];
    li.textContent = `${i + 1}. ${mv.notation}` + (a && a.mark ? " " + markSymbol[a.mark] : "");
    if (a && a.mark) li.className = "mark-" + a.mark;
    if (reviewPly === i + 1) li.classList.add("current");
    li.title = `${sideTitle(s, mv.mover)}: ${mv.notation}` + (a ? ` — ${a.comment}` : "");
    li.addEventListener("click", () => showPly(i + 1));
    ol.append(li);
  });
  ol.scrollTop = ol.scrollHeight;
}
