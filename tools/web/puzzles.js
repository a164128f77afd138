// The Puzzles view of the page (docs/puzzles.md), shown in place of the game (the game's
// board, moves and settings step aside until "Back to the game"): the day's puzzle (the
// same for everyone on a date) or a random one of the game chosen in the Game menu, the
// answer judged by the engine (GET /api/puzzle, POST /api/puzzle/check) with its reasons,
// the line played out, and the player's Glicko-2 puzzle rating kept in this browser
// (localStorage), never on the server, which only computes the rating after each attempt
// (core/puzzle_rating.h) and says where a new player starts (`new_player`: the middle of
// the game's puzzles). After an analysis, the player's accuracy (the server's) and own
// mistakes and blunders as puzzles (POST /api/puzzle/try), judged but not rated, reached
// from here or from the analysis (its button sends "kz-learn-mistakes"). index.html only
// gives it a button and an empty section; the analysed game is game.js's.
import { api, toast } from "./api.js";
import { boardGrid, boardSideName } from "./board.js";
import { currentGame, gameName } from "./game.js";
import { humanSide } from "./game_view.js";
import { keepNumbersWithEndings, tr } from "./i18n.js";

const el = (id) => document.getElementById(id);
const kRatingKey = "kz-puzzle-rating";  // {game: {rating, deviation, volatility}}
const kTriedKey = "kz-puzzle-tried";    // {game: {id: 1 solved | 0 failed}}

let current = null;   // the puzzle shown
let answered = false;
let lastQuery = "";   // how the puzzle shown was asked for (redrawn in a new language)

// What this page keeps in memory where the browser's storage takes nothing (full or
// turned off): the rating and the tried puzzles then last until the page closes.
const unkept = new Map();
let notKeptSaid = false;

function load(key) {
  if (unkept.has(key)) return JSON.parse(unkept.get(key));
  try { return JSON.parse(localStorage.getItem(key) || "{}") || {}; } catch (e) { return {}; }
}
function keep(key, value) {
  const text = JSON.stringify(value);
  try {
    localStorage.setItem(key, text);
    unkept.delete(key);
  } catch (e) {
    unkept.set(key, text);
    if (!notKeptSaid)
      toast(tr("This browser does not let the page keep your puzzle rating (its storage is full or turned off); it lasts until the page closes."), 8000);
    notKeptSaid = true;
  }
}
// The player's rating in `game` as this browser keeps it, else null (a new player).
function keptRating(game) {
  const r = load(kRatingKey)[game];
  const numbers = r && ["rating", "deviation", "volatility"].every((k) => Number.isFinite(r[k]));
  return numbers ? r : null;
}
// The rating an attempt at `p` starts from: the kept one, else where the server says a
// new player of p's game starts (the middle of its puzzles).
function myRating(p) {
  return keptRating(p.game) || p.new_player;
}
function showRating(p) {
  const kept = keptRating(p.game);
  const r = myRating(p);
  const words = { rating: Math.round(r.rating), deviation: Math.round(2 * r.deviation) };
  el("puzzle-rating").textContent = kept
    ? tr("Your puzzle rating: {rating} (give or take {deviation}).", words)
    : tr("Your puzzle rating starts at {rating} (give or take {deviation}), the middle of this game's puzzles.", words);
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
  showPuzzleParts(true);
  el("puzzle-title").textContent = tr("Ply {ply}: Find a better move than {move}.", { ply: x.ply, move: x.notation });
  el("puzzle-about").textContent = "";
  el("puzzle-task").textContent = tr("{side} to move: find the best move.", { side: side(current, r.board.to_move) });
  el("puzzle-result").textContent = "";
  delete el("puzzle-result").dataset.correct;
  el("puzzle-rating").textContent = "";
  drawBoard(current, r.board, true);
  el("puzzle-title").scrollIntoView({ block: "nearest" });
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
// The puzzle's parts (title, board, answer, rating) shown, or all hidden while the view
// says there are no puzzles for the game chosen.
function showPuzzleParts(shown) {
  for (const id of ["puzzle-title", "puzzle-about", "puzzle-task", "puzzle-board", "puzzle-result", "puzzle-rating"])
    el(id).hidden = !shown;
}
// What the game chosen in the Game menu is called, for "no puzzles for ...".
function noPuzzlesWords() {
  const menu = el("game");
  if (menu.value === "custom")
    return tr("There are no puzzles for this size of Kalah yet. Puzzles come with Togyz Kumalak and Kalah (6 pits, 4 seeds): choose one of them in the Game menu.");
  return tr("There are no puzzles for {game} yet. Puzzles come with Togyz Kumalak and Kalah (6 pits, 4 seeds): choose one of them in the Game menu.",
            { game: menu.selectedOptions[0].textContent.trim() });
}
// Shows a puzzle of the game chosen in the Game menu: `query` is "" (today's), "&random=N"
// or "&id=ID" / "&date=D" (the same one again).
async function show(query) {
  const game = gameName();
  lastQuery = query;
  let p;
  try {
    p = await api("GET", `/api/puzzle?game=${encodeURIComponent(game)}${query}`);
  } catch (e) {
    if (game !== gameName()) return;
    current = null;
    el("puzzles").dataset.game = game;
    // The game has no puzzles (a Kalah size being typed in is no game yet: none either).
    const none = (e.status === 404 || (e.status === 400 && el("game").value === "custom")) && !query.startsWith("&id=");
    el("puzzle-none").textContent = none ? noPuzzlesWords() : tr("No puzzle: {error}", { error: e.message });
    el("puzzle-none").hidden = false;
    el("puzzle-daily").hidden = el("puzzle-random").hidden = none;
    showPuzzleParts(false);
    return;
  }
  if (game !== gameName()) return;  // the Game menu changed meanwhile: its puzzle comes
  current = p;
  answered = false;
  el("puzzles").dataset.game = game;
  el("puzzle-none").hidden = true;
  el("puzzle-daily").hidden = el("puzzle-random").hidden = false;
  showPuzzleParts(true);
  drawTitle(p);
  el("puzzle-result").textContent = "";
  delete el("puzzle-result").dataset.correct;
  drawBoard(p, p.board, true);
  showRating(p);
}
// The title in a player's words (the server's, in the page's language: "Puzzle of the
// day, 6 December", "Puzzle 12 of 180"), the puzzle's rating and whose move it is.
function drawTitle(p) {
  el("puzzle-title").textContent = keepNumbersWithEndings(p.title);
  el("puzzle-about").textContent = tr("This puzzle is rated {rating}.", { rating: p.rating });
  el("puzzle-task").textContent = tr("{side} to move: find the best move.", { side: side(p, p.board.to_move) });
}
// A puzzle rates the player once: trying it again after seeing the solution would say
// nothing, so an answer to a puzzle tried before is judged without the rating.
async function answer(pit) {
  if (!current || answered) return;
  answered = true;
  const p = current;
  const tried = load(kTriedKey);
  tried[p.game] = tried[p.game] || {};
  const before = myRating(p);
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
    keep(kRatingKey, ratings);
    keep(kTriedKey, tried);
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
  showRating(p);
}

// A message id marked for tools/po/extract.sh, translated where it is shown.
const tr_noop = (msgid) => msgid;
// A button whose words follow the page's language (i18n.js translatePage); `msgid` is
// marked with tr_noop where it is written.
function button(id, msgid, onClick) {
  const b = document.createElement("button");
  b.type = "button";
  b.id = id;
  b.dataset.i18n = msgid;
  b.textContent = tr(msgid);
  b.addEventListener("click", onClick);
  return b;
}

function build() {
  const section = el("puzzles");
  section.innerHTML = "";
  const make = (tag, id, cls) => {
    const e = document.createElement(tag);
    if (id) e.id = id;
    if (cls) e.className = cls;
    return e;
  };
  const head = make("div", null, "puzzles-head");
  const h = make("h2");
  h.dataset.i18n = tr_noop("Puzzles");
  h.textContent = tr("Puzzles");
  head.append(h, button("puzzle-back", tr_noop("Back to the game"), closePuzzles));
  const buttons = make("div", null, "buttons");
  buttons.append(
    button("puzzle-daily", tr_noop("Today's puzzle"), () => show("")),
    button("puzzle-random", tr_noop("Another puzzle"), () => show(`&random=${Math.floor(Math.random() * 1e9)}`)),
    button("puzzle-mistakes", tr_noop("Learn from your mistakes"), showMistakes));
  const none = make("p", "puzzle-none");
  none.hidden = true;
  section.append(head, none, make("p", "puzzle-title", "puzzle-title"), make("p", "puzzle-about", "muted"),
                 make("p", "puzzle-task"), make("div", "puzzle-board"), make("div", "puzzle-result"),
                 make("p", "puzzle-rating", "muted"), buttons, make("div", "puzzle-mistakes-list"));
}

// Shows the view in place of the game (built on first use); `then` fills it.
function openPuzzles(then) {
  if (!el("puzzle-board")) build();
  el("puzzles").hidden = false;
  document.body.classList.add("puzzles-shown");
  el("puzzles-open").setAttribute("aria-pressed", "true");
  el("puzzle-mistakes-list").replaceChildren();
  window.scrollTo(0, 0);
  then();
}
// Back to the game, as it was left (also when the Rules guide takes the page: guide.js).
export function closePuzzles() {
  el("puzzles").hidden = true;
  document.body.classList.remove("puzzles-shown");
  el("puzzles-open").setAttribute("aria-pressed", "false");
  window.scrollTo(0, 0);
}
function puzzlesShown() {
  return !el("puzzles").hidden;
}

// Wires the Puzzles button (it opens the view with today's puzzle of the game chosen, and
// takes the player back to the game), the analysis' "Learn from your mistakes", and
// follows the Game menu and the page's language while the view is open.
export function startPuzzles() {
  const open = el("puzzles-open");
  if (!open) return;
  open.setAttribute("aria-pressed", "false");
  open.addEventListener("click", () => (puzzlesShown() ? closePuzzles() : openPuzzles(() => show(""))));
  document.addEventListener("kz-learn-mistakes", () => openPuzzles(() => {
    current = null;
    el("puzzle-none").hidden = true;
    showPuzzleParts(false);
    showMistakes();
  }));
  // Another game in the menu: its own puzzle of the day (or the words that it has none).
  const followGame = () => {
    if (puzzlesShown() && el("puzzles").dataset.game !== gameName()) {
      el("puzzle-mistakes-list").replaceChildren();
      show("");
    }
  };
  for (const id of ["game", "pits", "seeds", "empty-capture"]) el(id).addEventListener("change", followGame);
  // Another language: the puzzle not answered yet is asked for again, for its title in
  // the new words (buttons follow by themselves, data-i18n).
  new MutationObserver(() => {
    if (!puzzlesShown()) return;
    if (current && !current.mistake && !answered)
      show(current.date ? `&date=${current.date}` : `&id=${encodeURIComponent(current.id)}`);
    else if (!current && !el("puzzle-none").hidden) show(lastQuery);
  }).observe(document.documentElement, { attributes: true, attributeFilter: ["lang"] });
}
