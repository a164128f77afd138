// The Openings view of the board page: the opening explorer (docs/openings.md) for the
// position on its own board. For each move played there in the explorer's games it lists
// how many games, a bar and the counts of the wins, draws and losses of the player who
// made the move, and the mean rating of those who chose it, for the source picked (all
// players, a PlayOK rating band, the titled players of the 2018 tournament, the engine).
// Tapping a move (in the list or on the board) plays it here; back, forward and start
// walk the line explored. The game's "Explore this position" opens the view at the
// position the game shows.
//
// Everything comes from GET /api/openings (tools/serve/openings_api.h): the moves, their
// counts and the position each leads to, so the page computes no rule. index.html only
// gives the view a header button (#openings-open), the game's button (#openings-here)
// and an empty section (#openings); like the Rules guide it takes the place of the game
// (#play and the side column) while open and gives them back on close, and like the
// Puzzles view it sets aside the settings that only start a game (style.css).
import { api } from "./api.js";
import { boardGrid, boardSideName } from "./board.js";
import { gameName, shownPosition } from "./game.js";
import { tr, trn } from "./i18n.js";
import { closePuzzles } from "./puzzles.js";

const el = (id) => document.getElementById(id);
// A message id marked for tools/po/extract.sh, translated where it is shown.
const tr_noop = (msgid) => msgid;

// The source chooser: the API's source and band, and the words.
const kSources = [
  { value: "players", source: "players", band: "", words: tr_noop("All players") },
  { value: "below-1200", source: "rated", band: "below-1200", words: tr_noop("PlayOK, rated below 1200") },
  { value: "1200-1499", source: "rated", band: "1200-1499", words: tr_noop("PlayOK, rated 1200 to 1499") },
  { value: "1500-1799", source: "rated", band: "1500-1799", words: tr_noop("PlayOK, rated 1500 to 1799") },
  { value: "1800-up", source: "rated", band: "1800-up", words: tr_noop("PlayOK, rated 1800 and above") },
  { value: "titled", source: "titled", band: "", words: tr_noop("Titled players (2018 tournament)") },
  { value: "engine", source: "engine", band: "", words: tr_noop("The engine against itself") },
];

let line = [];        // the positions explored: [{position, move (notation leading here)}]
let at = 0;           // the index in `line` shown
let shown = null;     // the API's last answer, null while none
let covered = null;   // while open: the views it hides, each with whether it was hidden
let asked = 0;        // the number of the last request: an older answer is dropped

function isOpen() {
  return !el("openings").hidden;
}

function make(tag, id, cls, text) {
  const e = document.createElement(tag);
  if (id) e.id = id;
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function button(id, msgid, onClick, cls) {
  const b = make("button", id, cls, tr(msgid));
  b.type = "button";
  b.dataset.i18n = msgid;
  b.addEventListener("click", onClick);
  return b;
}

function build() {
  const section = el("openings");
  section.replaceChildren();
  const head = make("div", null, "openings-head");
  const h = make("h2", null, null, tr("Openings"));
  h.dataset.i18n = tr_noop("Openings");
  head.append(h, button("openings-close", tr_noop("Back to the game"), close));

  const chooser = make("label", null, "openings-source");
  const words = make("span", null, null, tr("Games of"));
  words.dataset.i18n = tr_noop("Games of");
  const select = make("select", "openings-source");
  for (const s of kSources) {
    const o = make("option", null, null, tr(s.words));
    o.value = s.value;
    o.dataset.i18n = s.words;
    select.append(o);
  }
  select.addEventListener("change", () => ask());
  chooser.append(words, select);

  const nav = make("div", "openings-nav", "buttons");
  nav.append(button("openings-start", tr_noop("Start"), () => go(0)),
             button("openings-back", tr_noop("Back"), () => go(at - 1)),
             button("openings-forward", tr_noop("Forward"), () => go(at + 1)));

  section.append(head, make("p", "openings-about", "muted small"), chooser,
                 make("p", "openings-line"), nav, make("p", "openings-status", null),
                 make("div", "openings-board"), make("div", "openings-moves"),
                 make("p", "openings-legend", "muted small"));
}

// "1. 76 98 2. 11": the line explored up to the position shown, in notation.
function lineWords() {
  const moves = line.slice(1, at + 1).map((p) => p.move);
  if (!moves.length) return tr("The start of the game");
  const white = line[0].position.trim().endsWith("w");
  const parts = [];
  let number = 1;
  moves.forEach((m, i) => {
    const whiteMove = (i % 2 === 0) === white;
    if (whiteMove) parts.push(`${number}. ${m}`);
    else parts.push(i === 0 ? `${number}… ${m}` : m);
    if (!whiteMove) number++;
  });
  return parts.join(" ");
}

// Where the numbers come from, in the games' counts of the file.
function aboutWords(about) {
  return [
    trn("{n} PlayOK game", "{n} PlayOK games", about.online),
    trn("{n} game of titled players at the 2018 tournament", "{n} games of titled players at the 2018 tournament", about.titled),
    trn("{n} game the engine played against itself", "{n} games the engine played against itself", about.engine),
  ].join(" · ");
}

function percent(x) {
  return `${Math.round(100 * x)}%`;
}

// A bar of the mover's wins, draws and losses in proportion, and the counts beside it.
function resultBar(m) {
  const decided = m.wins + m.draws + m.losses;
  const bar = make("span", null, "openings-bar");
  for (const [part, n] of [["win", m.wins], ["draw", m.draws], ["loss", m.losses]]) {
    const s = make("span", null, part);
    s.style.width = decided ? `${(100 * n) / decided}%` : "0";
    bar.append(s);
  }
  bar.setAttribute("role", "img");
  bar.setAttribute("aria-label", tr("{wins} won, {draws} drawn, {losses} lost",
                                    { wins: m.wins, draws: m.draws, losses: m.losses }));
  return bar;
}

function drawMoves(a) {
  const list = el("openings-moves");
  list.replaceChildren();
  for (const m of a.moves) {
    const row = make("button", null, "openings-move");
    row.type = "button";
    row.dataset.move = m.move;
    row.dataset.notation = m.notation;
    row.dataset.games = m.games;
    const top = make("span", null, "openings-move-top");
    top.append(make("strong", null, "openings-notation", m.notation),
               make("span", null, "openings-games",
                    trn("{n} game", "{n} games", m.games) + ` · ${percent(m.share)}`));
    const counts = make("span", null, "openings-counts",
                        tr("won {wins} · drawn {draws} · lost {losses}",
                           { wins: m.wins, draws: m.draws, losses: m.losses }));
    const rating = make("span", null, "openings-rating",
                         m.mean_rating === null ? "" : tr("mean rating {rating}", { rating: m.mean_rating }));
    row.append(top, resultBar(m), counts, rating);
    row.addEventListener("click", () => play(m));
    list.append(row);
  }
}

function draw() {
  const a = shown;
  if (!a) return;
  el("openings-about").textContent =
    tr("Where the numbers come from: {sources}. Results are from the view of the player who made the move.",
       { sources: aboutWords(a.about) });
  el("openings-line").textContent = lineWords();
  el("openings-start").disabled = el("openings-back").disabled = at === 0;
  el("openings-forward").disabled = at >= line.length - 1;
  const side = boardSideName(true, a.board.to_move);
  let status;
  if (a.board.over) status = tr("The game is over in this position.");
  else if (a.games > 0) status = trn("{side} to move: {n} game reached this position.",
                                     "{side} to move: {n} games reached this position.", a.games, { side });
  else status = trn("{side} to move. No game of these players reached this position; the statistics cover the first {n} move of each game.",
                     "{side} to move. No game of these players reached this position; the statistics cover the first {n} moves of each game.",
                     a.max_plies, { side });
  el("openings-status").textContent = status;
  // The moves of the list can be played on the board too; other holes stay still.
  const board = { ...a.board, legal: a.moves.map((m) => m.move) };
  el("openings-board").replaceChildren(boardGrid(board, {
    togyz: true, npits: a.board.pits[0].length, bottom: 0, markToMove: true,
    play: (pit) => play(a.moves.find((m) => m.move === pit)),
  }));
  drawMoves(a);
  el("openings-legend").textContent = a.moves.length
    ? tr("Most played first. The bar: green the games won, grey drawn, red lost by the player who made the move.")
    : "";
}

// The view without an explorer for the game chosen: the server's words, nothing else.
function drawRefusal(message) {
  shown = null;
  el("openings-about").textContent = "";
  el("openings-line").textContent = "";
  el("openings-status").textContent = message;
  el("openings-board").replaceChildren();
  el("openings-moves").replaceChildren();
  el("openings-legend").textContent = "";
  for (const id of ["openings-start", "openings-back", "openings-forward"]) el(id).disabled = true;
}

// Asks for the position `line[at]` with the source chosen, and draws the answer.
async function ask() {
  const s = kSources.find((k) => k.value === el("openings-source").value) || kSources[0];
  const game = gameName();
  const position = line.length ? line[at].position : "";
  const query = `/api/openings?game=${encodeURIComponent(game)}&source=${s.source}` +
    (s.band ? `&band=${s.band}` : "") + (position ? `&position=${encodeURIComponent(position)}` : "");
  const mine = ++asked;
  el("openings").dataset.game = game;
  try {
    const a = await api("GET", query);
    if (mine !== asked) return;
    if (!line.length) line = [{ position: a.position, move: "" }];
    shown = a;
    el("openings").dataset.position = a.position;
    draw();
  } catch (e) {
    if (mine !== asked) return;
    drawRefusal(e.message);
  }
}

function play(m) {
  if (!m) return;
  line = line.slice(0, at + 1);
  line.push({ position: m.after, move: m.notation });
  at = line.length - 1;
  ask();
}

function go(index) {
  if (index < 0 || index >= line.length || index === at) return;
  at = index;
  ask();
}

// Opens the view at `position` (the rules pages' string; "" the start).
function open(position) {
  if (!el("openings-board")) build();
  line = position ? [{ position, move: "" }] : [];
  at = 0;
  shown = null;
  if (!isOpen()) {
    closePuzzles();
    covered = ["play"].map((id) => el(id)).concat([...document.querySelectorAll("main > aside")])
      .filter(Boolean).map((view) => ({ view, hidden: view.hidden }));
    for (const c of covered) c.view.hidden = true;
    el("openings").hidden = false;
    document.body.classList.add("openings-shown");
    el("openings-open").setAttribute("aria-pressed", "true");
  }
  window.scrollTo(0, 0);
  ask();
}

function close() {
  if (!isOpen()) return;
  el("openings").hidden = true;
  document.body.classList.remove("openings-shown");
  el("openings-open").setAttribute("aria-pressed", "false");
  for (const c of covered || []) c.view.hidden = c.hidden;
  covered = null;
  window.scrollTo(0, 0);
}

// Wires the Openings button (the start position of the game chosen), the game's "Explore
// this position", and follows the Game menu and the page's language while open. The
// other views' buttons (New game, Puzzles, Rules) close it first.
export function startOpenings() {
  const button = el("openings-open");
  if (!button || !el("openings")) return;
  button.setAttribute("aria-pressed", "false");
  button.addEventListener("click", () => (isOpen() ? close() : open("")));
  const here = el("openings-here");
  if (here) here.addEventListener("click", () => open(shownPosition()));
  el("setup").addEventListener("click", (e) => {
    if (e.target.closest("#new-game, #puzzles-open, #guide-open")) close();
  }, true);
  const followGame = () => {
    if (isOpen() && el("openings").dataset.game !== gameName()) open("");
  };
  for (const id of ["game", "pits", "seeds", "empty-capture"]) el(id).addEventListener("change", followGame);
  // A new language: the view is drawn again in it (the server's words come again too).
  new MutationObserver(() => {
    if (isOpen()) ask();
  }).observe(document.documentElement, { attributes: true, attributeFilter: ["lang"] });
}
