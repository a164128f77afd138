// The Puzzles view of `kumalak serve` (docs/puzzles.md): the day's puzzle (the same for
// everyone on a date), a random one, the answer judged by the server (GET /api/puzzle,
// POST /api/puzzle/check) with the engine's reasons, the line played out, and the
// player's Glicko-2 puzzle rating kept in this browser (localStorage), never on the
// server, which only computes the rating after each attempt (core/puzzle_rating.h);
// after an analysis, the player's accuracy (the server's) and own mistakes and blunders
// as puzzles (POST /api/puzzle/try), judged but not rated. index.html only gives it a
// button and an empty section; the analysed game is game.js's.
import { api } from "./api.js";
import { boardGrid, boardSideName } from "./board.js";
import { currentGame } from "./game.js";
import { humanSide } from "./game_view.js";
import { tr } from "./i18n.js";

const el = (id) => document.getElementById(id);
const kRatingKey = "kz-puzzle-rating";  // {game: {rating, deviation, volatility}}
const kTriedKey = "kz-puzzle-tried";    // {game: {id: 1 solved | 0 failed}}
// A new player's rating: Glicko-2's start (core/glicko2.h Glicko2Rating), shown before
// the first attempt and sent with it.
const kNewPlayer = { rating: 1500, deviation: 350, volatility: 0.06 };

let current = null;   // the puzzle shown
let answered = false;

function load(key) {
  try { return JSON.parse(localStorage.getItem(key) || "{}") || {}; } catch (e) { return {}; }
}
// The player's rating in `game` as this browser keeps it; a new player's when there is
// none or what is kept is not three numbers.
function myRating(game) {
  const r = load(kRatingKey)[game];
  const numbers = r && ["rating", "deviation", "volatility"].every((k) => Number.isFinite(r[k]));
  return numbers ? r : kNewPlayer;
}
function showRating(game) {
  el("puzzle-rating").textContent = tr("Your puzzle rating: {rating} (give or take {deviation}).", {
    rating: Math.round(myRating(game).rating), deviation: Math.round(2 * myRating(game).deviation) });
}

// --- Learn from your mistakes: the analysed game of the page (game.js) ----------------
function showMistakes() {
  const box = el("puzzle-mistakes-list");
  box.replaceChildren();
  const s = currentGame();
  const a = s && s.analysis;
  if (!a || !a.complete) {
    box.textContent = tr("Analyse a game first: your mistakes become puzzles here.");
    return;
  }
  const human = humanSide(s);
  const p = { togyz: s.togyz, npits: s.npits, game: s.game };
  for (const mover of [0, 1]) {
    if (human >= 0 && mover !== human) continue;
    const accuracy = a.accuracy ? a.accuracy[mover] : null;  // none without judged moves
    if (accuracy === null || accuracy === undefined) continue;
    const line = document.createElement("p");
    line.textContent = tr("{side}'s accuracy: {accuracy}%.", {
      side: side(p, mover), accuracy: accuracy.toFixed(1) });
    box.append(line);
  }
  const mistakes = a.plies.filter((x) => x.judged && x.best && (x.mark === "mistake" || x.mark === "blunder")
                                   && (human < 0 || x.mover === human));
  if (!mistakes.length) {
    const none = document.createElement("p");
    none.textContent = tr("No mistakes or blunders to learn from in this game.");
    box.append(none);
  }
  for (const x of mistakes) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "puzzle-mistake";
    b.textContent = tr("Ply {ply}: Find a better move than {move}.", { ply: x.ply, move: x.notation });
    b.addEventListener("click", () => showMistake(s, x));
    box.append(b);
  }
}
async function showMistake(s, x) {
  let r;
  try {
    r = await api("GET", `/api/board?session=${encodeURIComponent(s.session)}&ply=${x.ply - 1}`);
  } catch (e) {
    el("puzzle-result").textContent = e.message;
    return;
  }
  current = { mistake: true, game: s.game, togyz: s.togyz, npits: s.npits, board: r.board,
              position: r.board.position, best: x.best };
  answered = false;
  el("puzzle-title").textContent = tr("Ply {ply}: Find a better move than {move}.", { ply: x.ply, move: x.notation });
  el("puzzle-task").textContent = tr("{side} to move: find the best move.", { side: side(current, r.board.to_move) });
  el("puzzle-result").textContent = "";
  delete el("puzzle-result").dataset.correct;
  drawBoard(current, r.board, true);
}

// --- Drawing ----------------------------------------------------------------------
function side(p, player) {
  return boardSideName(p.togyz, player);
}
// The board (board.js) with the puzzle's side to move at the bottom; its legal holes
// answer the puzzle while `playable`.
function drawBoard(p, b, playable) {
  el("puzzle-board").replaceChildren(boardGrid(b, {
    togyz: p.togyz, npits: p.npits, bottom: p.board.to_move, play: playable ? answer : null,
  }));
}

// --- Loading and answering ----------------------------------------------------------
function puzzleGame() {
  const chosen = el("game") ? el("game").value : "togyz";
  return chosen === "kalah" ? "kalah" : "togyz";
}
async function show(query) {
  let p;
  try {
    p = await api("GET", `/api/puzzle?game=${encodeURIComponent(puzzleGame())}${query}`);
  } catch (e) {
    el("puzzle-result").textContent = tr("No puzzle: {error}", { error: e.message });
    return;
  }
  current = p;
  answered = false;
  el("puzzle-title").textContent = p.title;  // in the page's language (core/puzzle_title.h)
  el("puzzle-task").textContent = tr("{side} to move: find the best move.", { side: side(p, p.board.to_move) });
  el("puzzle-result").textContent = "";
  drawBoard(p, p.board, true);
  showRating(p.game);
}
// A puzzle rates the player once: trying it again after seeing the solution would say
// nothing, so an answer to a puzzle tried before is judged without the rating.
async function answer(pit) {
  if (!current || answered) return;
  answered = true;
  const p = current;
  const tried = load(kTriedKey);
  tried[p.game] = tried[p.game] || {};
  const before = myRating(p.game);
  const rated = !p.mistake && !(p.id in tried[p.game]);
  let r;
  try {
    r = p.mistake
      ? await api("POST", "/api/puzzle/try", { game: p.game, position: p.position, best: p.best, move: pit })
      : await api("POST", "/api/puzzle/check", { game: p.game, id: p.id, move: pit,
                                                player: rated ? before : undefined });
  } catch (e) {
    answered = false;
    el("puzzle-result").textContent = e.message;
    return;
  }
  const name = (hole, notation) => p.togyz ? tr("hole {hole} ({notation})", { hole, notation })
                                           : tr("pit {pit}", { pit: hole });
  const verdict = r.correct
    ? tr("Correct: {move} is the best move; it {reason}.", {
        move: name(r.solution, r.solution_notation), reason: r.reason })
    : tr("Not the best move: {played} {played_reason}. The solution is {move}: it {reason}.", {
        played: name(r.played, r.played_notation), played_reason: r.played_reason,
        move: name(r.solution, r.solution_notation), reason: r.reason });
  if (p.mistake) {  // the player's own game: judged, not rated
    el("puzzle-result").textContent = verdict;
    el("puzzle-result").dataset.correct = r.correct ? "yes" : "no";
    drawBoard(p, p.board, false);
    return;
  }
  const lines = [verdict, tr("The line: {line}.", { line: r.line_text })];
  if (!rated) {
    lines.push(tr("You have tried this puzzle before, so your puzzle rating stays {rating}.", {
      rating: Math.round(before.rating) }));
  } else {
    const ratings = load(kRatingKey);
    ratings[p.game] = r.player_after;
    tried[p.game][p.id] = r.correct ? 1 : 0;
    localStorage.setItem(kRatingKey, JSON.stringify(ratings));
    localStorage.setItem(kTriedKey, JSON.stringify(tried));
    lines.push(tr("Your puzzle rating: {before} -> {after} (give or take {deviation}).", {
      before: Math.round(before.rating), after: Math.round(ratings[p.game].rating),
      deviation: Math.round(2 * ratings[p.game].deviation) }));
  }
  el("puzzle-result").replaceChildren(...lines.map((t) => {
    const d = document.createElement("p");
    d.textContent = t;
    return d;
  }));
  el("puzzle-result").dataset.correct = r.correct ? "yes" : "no";
  drawBoard(p, r.board_after, false);
  showRating(p.game);
}

function build() {
  const section = el("puzzles");
  section.innerHTML = "";
  const h = document.createElement("h2");
  h.textContent = tr("Puzzles");
  const make = (tag, id, cls) => {
    const e = document.createElement(tag);
    if (id) e.id = id;
    if (cls) e.className = cls;
    return e;
  };
  const board = make("div", "puzzle-board");
  const buttons = make("div", null, "buttons");
  const daily = make("button", "puzzle-daily");
  daily.type = "button";
  daily.textContent = tr("Today's puzzle");
  daily.addEventListener("click", () => show(""));
  const random = make("button", "puzzle-random");
  random.type = "button";
  random.textContent = tr("Another puzzle");
  random.addEventListener("click", () => show(`&random=${Math.floor(Math.random() * 1e9)}`));
  const mistakes = make("button", "puzzle-mistakes");
  mistakes.type = "button";
  mistakes.textContent = tr("Learn from your mistakes");
  mistakes.addEventListener("click", showMistakes);
  buttons.append(daily, random, mistakes);
  section.append(h, make("p", "puzzle-title"), make("p", "puzzle-task"), board,
                 make("div", "puzzle-result"), make("p", "puzzle-rating", "muted"), buttons,
                 make("div", "puzzle-mistakes-list"));
}

// Wires the Puzzles button: it opens the view (built on first use) with today's puzzle,
// and closes it.
export function startPuzzles() {
  const open = el("puzzles-open");
  if (!open) return;
  open.addEventListener("click", () => {
    const section = el("puzzles");
    section.hidden = !section.hidden;
    if (!section.hidden) {
      if (!el("puzzle-board")) build();
      show("");
      section.scrollIntoView();
    }
  });
}
