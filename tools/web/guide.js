// The Rules guide of the board page: a first-time player's walk through the rules of
// Togyz Kumalak and of Kalah, step by step on the board. Each step says one rule, sets a
// position, highlights the hole to tap, sows the stones along the game's sowing route
// (sowing.js) when it is tapped, then shows the position the move leads to and says
// what happened; the last step explains the notation, the levels and the analysis' words.
//
// The page computes no rule here: every step's position, move and result come from
// guide_positions.json, which tests/serve_guide_positions_test.cpp plays through the
// rules core (core/position.h), so the guide and the engine cannot drift apart. The
// sentences below describe those exact moves; change them together.
//
// index.html only gives the guide a header button (#guide-open) and an empty section
// (#guide); like the Puzzles view (puzzles.js) it is built on first use. While open it
// takes the place of the game (#play and the side column), which it gives back on close.
import { boardGrid } from "./board.js";
import { tr } from "./i18n.js";
import { sowingPath } from "./sowing.js";
import { closePuzzles } from "./puzzles.js";
import { coverGame, uncoverGame } from "./game_cover.js";

const el = (id) => document.getElementById(id);
const reducedMotion = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)");
const kSowStepMs = 260;     // one stone every so often: slow enough to follow by eye
const kCaptureDelayMs = 450;  // the last stone lands, then the capture is taken

// Each game's steps, by the id of their entry in guide_positions.json; `text` and `result`
// give the step's sentences in the reader's language (called at drawing time, so that a
// change of language redraws them). The last step of each game has no board.
const kSteps = {
  togyz: [
    { id: "sow", title: () => tr("Sowing"), text: () => [
        tr("You play White, the bottom row. Each player owns the nine holes nearest to them, numbered 1 to 9 from their own left, and a kazan between the rows; the opponent's hole 1 is on your right."),
        tr("A move: take all the stones from one of your holes and sow them one by one counter-clockwise, to your right and on into the opponent's row. The first stone goes back into the hole it came from.")],
      result: () => tr("The first of the five stones went back into hole 7, the others into holes 8 and 9 and the opponent's holes 1 and 2. The last one made 5 stones there, an odd number, so nothing more happens.") },
    { id: "single", title: () => tr("A single stone"), text: () => [
        tr("A hole with a single stone is the exception: that stone moves on to the next hole.")],
      result: () => tr("The single stone of hole 5 moved on to hole 6.") },
    { id: "even", title: () => tr("An even number: a capture"), text: () => [
        tr("Where your last stone lands decides the rest. If it lands in one of the opponent's holes and makes the number of stones there even, you take them all into your kazan.")],
      result: () => tr("The last stone made 6 stones in the opponent's hole 3, an even number: all 6 went into your kazan.") },
    { id: "tuzdyk", title: () => tr("Three: a tuzdyk"), text: () => [
        tr("If your last stone makes exactly 3 stones in one of the opponent's holes, you take the 3 stones and the hole becomes your tuzdyk for the rest of the game.")],
      result: () => tr("The last stone made 3 stones in the opponent's hole 2: it is your tuzdyk now (marked X), and its 3 stones went into your kazan.") },
    { id: "not-hole-9", title: () => tr("Never in hole 9"), text: () => [
        tr("A tuzdyk has three limits. The first: the opponent's hole 9 never becomes a tuzdyk.")],
      result: () => tr("The last stone made 3 stones in the opponent's hole 9: no tuzdyk there, and 3 is odd, so the stones stay.") },
    { id: "same-number", title: () => tr("One tuzdyk each, never the same number"), text: () => [
        tr("The other two limits: each player makes only one tuzdyk in a game, and never in the hole with the same number as the opponent's tuzdyk. Here the opponent's tuzdyk is your hole 2.")],
      result: () => tr("The last stone made 3 stones in the opponent's hole 2, but the opponent's tuzdyk is your hole 2: no tuzdyk, and the 3 stones stay.") },
    { id: "into-tuzdyk", title: () => tr("Stones that fall into a tuzdyk"), text: () => [
        tr("A tuzdyk is always empty: every stone sown into it goes to its owner's kazan, whoever sows it, and nobody moves from it. Here your tuzdyk is the opponent's hole 3.")],
      result: () => tr("The stone that fell into your tuzdyk went into your kazan. The last one made 5 stones in the opponent's hole 4, an odd number, so nothing more happens.") },
    { id: "end", title: () => tr("The end and the count"), text: () => [
        tr("The game ends when the player to move has no stones in their holes. The stones still in a row then go to that row's owner: the player who can still move gets them all."),
        tr("There are 162 stones: 82 or more win, 81 each is a draw. Here the opponent's row is empty, and your move gives it nothing.")],
      result: () => tr("The opponent has no move, so the game is over: your 12 stones went into your kazan, 82 against 80, and you win.") },
    { id: "notation", title: () => tr("Notation and levels"), text: () => [
        tr("A move is written as on a scoresheet and on PlayOK: two digits, the hole it starts from and the hole its last stone lands in, each numbered in its own row. 72: from your hole 7, the last stone in hole 2, here the opponent's."),
        tr("An x after a move, as in 38x, means that it made a tuzdyk. In a saved game record a number in brackets, as in 76(10), is the mover's kazan after a capture."),
        levelsText(),
        tr("A level named by a rating, “like a player rated 1200”, plays like a player of that rating on PlayOK, the online game room: the engine learnt how people play from rated PlayOK games."),
        analysisText()] },
  ],
  kalah: [
    { id: "sow", title: () => tr("Sowing"), text: () => [
        tr("You play South, the bottom row. Each player owns the six pits nearest to them, numbered 1 to 6 from their own left, and a store at their right end."),
        tr("A move: take all the seeds from one of your pits and sow them one by one counter-clockwise, starting with the next pit: your pits, your store, then the opponent's pits.")],
      result: () => tr("The five seeds went into your pits 5 and 6, your store and the opponent's pits 1 and 2.") },
    { id: "round", title: () => tr("Round the board"), text: () => [
        tr("A long sowing goes round the board, past the opponent's store, which never gets your seeds, and back into your own pits.")],
      result: () => tr("Nine seeds: one into your store, six into the opponent's pits, then your pits 1 and 2. The opponent's store got none.") },
    { id: "store", title: () => tr("Your store: another turn"), text: () => [
        tr("If your last seed falls into your own store, you move again.")],
      result: () => tr("The last seed fell into your store: it is your move again.") },
    { id: "capture", title: () => tr("A capture from an empty pit"), text: () => [
        tr("If your last seed falls into one of your own pits that was empty, and the opponent's pit opposite holds seeds, you take that seed and all the seeds opposite into your store."),
        tr("With the “empty capture” rule (Bantumi) the lone seed goes into your store even when the pit opposite is empty.")],
      result: () => tr("The last seed fell into your empty pit 4: it and the 5 seeds of the opponent's pit 3 opposite went into your store, 6 in all.") },
    { id: "end", title: () => tr("The end and the count"), text: () => [
        tr("The game ends as soon as all the pits of one side are empty, even after a move that earns another turn. Each player then adds the seeds left in their own pits to their own store: more seeds win, an equal number is a draw.")],
      result: () => tr("Your pits are empty, so the game is over: the opponent's 12 seeds went into the opponent's store, and you win 25 to 23.") },
    { id: "notation", title: () => tr("Notation and levels"), text: () => [
        tr("A Kalah move is written as the number of its pit, 1 to 6, counted from the mover's left."),
        levelsText(),
        tr("Levels named by a PlayOK rating, “like a player rated 1200”, are offered for Togyz Kumalak only: the engine learnt them from rated PlayOK games of Togyz Kumalak."),
        analysisText()] },
  ],
};

function levelsText() {
  return tr("Levels: beginner, easy, medium, hard and expert are the engine's own strengths, from a glance one move ahead to its full search.");
}
function analysisText() {
  return tr("After “Analyse the game”, “engine's move 40%” is how often a side played the engine's own first choice, and “average loss” how much of its expected score a move gave away on average. A move that gave away 10%, 20% or 35% or more is marked ?! (inaccuracy), ? (mistake) or ?? (blunder).");
}

let positions = null;  // guide_positions.json, loaded on first use
let game = "togyz";
let index = 0;         // the step shown
let played = false;    // its move has been made and the result is shown
let sowing = null;     // the sowing under way: {timers, finish}
let covered = null;    // while open: the views it hides, each with whether it was hidden

function entry(step) {
  return (positions[game] || []).find((e) => e.id === step.id) || null;
}

// A position string of the rules pages (the project's, as the server writes it) as a
// board for board.js: Togyz `x` marks a tuzdyk in the row it sits in.
function parseBoard(text) {
  const [rows, s0, s1, side] = text.trim().split(/\s+/);
  const tuzdyk = [0, 0];
  const pits = rows.split("/").map((row, p) => row.split(",").map((v, i) => {
    if (v === "x") {
      tuzdyk[p ^ 1] = i + 1;  // the other player's tuzdyk
      return 0;
    }
    return Number(v);
  }));
  return { pits, stores: [Number(s0), Number(s1)], tuzdyk, legal: [], decided: false,
           to_move: side === "w" || side === "s" ? 0 : 1 };
}

// --- Drawing ------------------------------------------------------------------------

function draw(board, extra) {
  const togyz = game === "togyz";
  const grid = boardGrid(board, {
    togyz, npits: board.pits[0].length, bottom: 0,
    storeLabel: (p) => (p === 0 ? tr("You") : tr("Opponent")),
    ...extra,
  });
  el("guide-board").replaceChildren(grid);
  return grid;
}

function show() {
  stopSowing();
  const steps = kSteps[game];
  const step = steps[index];
  const e = step.id === "notation" ? null : entry(step);
  const section = el("guide");
  section.dataset.game = game;
  section.dataset.step = step.id;
  section.dataset.played = played ? "yes" : "no";
  for (const b of section.querySelectorAll(".guide-game"))
    b.setAttribute("aria-pressed", String(b.dataset.game === game));
  el("guide-count").textContent = tr("Step {step} of {total}", { step: index + 1, total: steps.length });
  el("guide-title").textContent = step.title();
  el("guide-text").replaceChildren(...step.text().map((t) => {
    const p = document.createElement("p");
    p.textContent = t;
    return p;
  }));
  el("guide-back").disabled = index === 0;
  el("guide-next").disabled = index === steps.length - 1;
  el("guide-again").hidden = !e || !played;
  el("guide-board").hidden = !e;
  el("guide-task").hidden = !e;
  el("guide-result").replaceChildren();
  if (!e) {
    el("guide-board").replaceChildren();
    return;
  }
  if (played) {
    showResult(step, e, null);
    return;
  }
  el("guide-task").textContent = game === "togyz"
    ? tr("Tap the highlighted hole {hole}.", { hole: e.move })
    : tr("Tap the highlighted pit {pit}.", { pit: e.move });
  const board = parseBoard(e.position);
  board.legal = [e.move];
  draw(board, { play: () => sow(step, e), hinted: (p, i) => p === 0 && i === e.move - 1 });
}

// The position after the move (the file's, as the engine plays it), with the move marked
// and the holes the end of the move changed (`from`, the board before them) flashing.
function showResult(step, e, from) {
  const after = parseBoard(e.after);
  const last = { mover: 0, pit: e.move, landing: e.landing };
  draw(after, {
    last,
    changed: from ? (p, i) => from.pits[p][i] !== after.pits[p][i] : null,
  });
  el("guide-task").textContent = tr("This move is written {move}.", { move: e.notation });
  const result = document.createElement("p");
  result.textContent = step.result();
  el("guide-result").replaceChildren(result);
  el("guide-again").hidden = false;
  el("guide").dataset.played = "yes";
}

// --- Sowing ---------------------------------------------------------------------------

function stopSowing() {
  if (!sowing) return;
  sowing.timers.forEach(clearTimeout);
  sowing = null;
}

// Plays the step's move: the stones leave the tapped hole and are sown one by one along
// the game's sowing route (a stone that falls into a tuzdyk goes on to its owner's
// kazan), then the position after the move, captures and the end included, is shown.
// A tap on the board, or a reader who asks for reduced motion, skips to the end.
function sow(step, e) {
  if (sowing || played) return;
  played = true;
  el("guide").dataset.played = "sowing";
  el("guide-task").textContent = "";
  const togyz = game === "togyz";
  const board = parseBoard(e.position);
  const n = board.pits[0][e.move - 1];
  const route = sowingPath({ togyz, npits: board.pits[0].length },
                           { mover: 0, pit: e.move, landing: e.landing });
  // Togyz puts the first of two or more stones back into the hole it came from; a single
  // stone, and Kalah's seeds, start in the next place.
  const cells = togyz && n >= 2 ? route : route.slice(1);
  const grid = el("guide-board").firstChild;
  const places = cells.map((sel) => {
    const d = grid.querySelector(sel).dataset;
    return d.store !== undefined ? { store: Number(d.store) } : { player: Number(d.player), pit: Number(d.pit) };
  });
  const finish = (work) => {
    stopSowing();
    showResult(step, e, work);
  };
  // A route shorter than the stones (a sowing of more than one lap) is not drawn stone by
  // stone; the guide's moves are all shorter than a lap.
  if (places.length !== n || (reducedMotion && reducedMotion.matches)) {
    finish(null);
    return;
  }
  const work = parseBoard(e.position);
  work.pits[0][e.move - 1] = 0;
  draw(work, { last: { mover: 0, pit: e.move, landing: [0, e.move] } });
  sowing = { timers: [], finish: () => finish(work) };
  places.forEach((at, k) => {
    sowing.timers.push(setTimeout(() => {
      let changed = null;
      if (at.store !== undefined) {
        work.stores[at.store] += 1;
      } else if (togyz && work.tuzdyk[at.player ^ 1] === at.pit) {
        work.stores[at.player ^ 1] += 1;  // into a tuzdyk: to its owner's kazan
      } else {
        work.pits[at.player][at.pit - 1] += 1;
        changed = (p, i) => p === at.player && i === at.pit - 1;
      }
      const g = draw(work, { changed });
      const lit = g.querySelector(cells[k]);
      if (lit) lit.classList.add("sowing");
    }, (k + 1) * kSowStepMs));
  });
  sowing.timers.push(setTimeout(() => finish(work), n * kSowStepMs + kCaptureDelayMs));
}

// --- The view ---------------------------------------------------------------------------

function build() {
  const section = el("guide");
  section.replaceChildren();
  const make = (tag, id, cls, text) => {
    const e = document.createElement(tag);
    if (id) e.id = id;
    if (cls) e.className = cls;
    if (text) e.textContent = text;
    return e;
  };
  const button = (id, text, onClick, cls) => {
    const b = make("button", id, cls, text);
    b.type = "button";
    b.addEventListener("click", onClick);
    return b;
  };
  const head = make("div", null, "guide-head");
  const games = make("div", null, "guide-games");
  for (const [g, name] of [["togyz", tr("Togyz Kumalak")], ["kalah", tr("Kalah (6 pits, 4 seeds)")]]) {
    const b = button(null, name, () => {
      game = g;
      index = 0;
      played = false;
      show();
    }, "guide-game");
    b.dataset.game = g;
    games.append(b);
  }
  head.append(make("h2", null, null, tr("Rules")), games,
              button("guide-close", tr("Back to the game"), close));
  const board = make("div", "guide-board");
  board.addEventListener("pointerdown", () => {
    if (sowing) sowing.finish();
  });
  const buttons = make("div", null, "buttons guide-buttons");
  buttons.append(
    button("guide-back", tr("Back"), () => go(-1)),
    button("guide-again", tr("Again"), () => {
      played = false;
      show();
    }),
    button("guide-next", tr("Next"), () => go(1)));
  section.append(head, make("p", "guide-count", "muted"), make("h3", "guide-title"),
                 make("div", "guide-text"), make("p", "guide-task", "guide-task"), board,
                 make("div", "guide-result", null), buttons);
}

function go(delta) {
  const steps = kSteps[game];
  index = Math.max(0, Math.min(steps.length - 1, index + delta));
  played = false;
  show();
  el("guide").scrollIntoView({ block: "start" });
}

async function open() {
  if (!positions) {
    try {
      const res = await fetch("guide_positions.json");
      if (!res.ok) throw new Error(res.statusText);
      positions = await res.json();
    } catch (e) {
      return;  // the page's own file: only a broken build lacks it
    }
  }
  const chosen = el("game") ? el("game").value : "togyz";
  game = chosen === "togyz" ? "togyz" : "kalah";
  index = 0;
  played = false;
  const section = el("guide");
  // The Puzzles view closes (its own way: it hides the game by a class of the body);
  // the guide covers the game and comes back to it.
  closePuzzles();
  covered = coverGame();
  build();
  section.hidden = false;
  show();
  section.scrollIntoView({ block: "start" });
}

function close() {
  stopSowing();
  const section = el("guide");
  if (section.hidden) return;
  section.hidden = true;
  uncoverGame(covered);
  covered = null;
}

// Wires the Rules button: it opens the guide in place of the game, and closes it. The
// game's own buttons (New game, Puzzles, Openings, Your games) close it first, so that what they show is seen.
export function startGuide() {
  const button = el("guide-open");
  if (!button || !el("guide")) return;
  button.addEventListener("click", () => (el("guide").hidden ? open() : close()));
  const setup = el("setup");
  if (setup) {
    setup.addEventListener("click", (e) => {
      if (e.target.closest("#new-game, #puzzles-open, #openings-open, #games-open")) close();
    }, true);
  }
  // A new language (i18n.js sets <html lang> once the catalog is in): the guide is drawn
  // again in it, at the same step.
  new MutationObserver(() => {
    if (el("guide").hidden) return;
    build();
    show();
  }).observe(document.documentElement, { attributes: true, attributeFilter: ["lang"] });
}
