// The Openings view of the board page: the opening explorer (docs/openings.md) for the
// position on its own board. For each move played there in the explorer's games it lists
// how many games, a bar and the counts of the wins, draws and losses of the player who
// made the move, and the mean rating of those who chose it, for the source picked (all
// players, a PlayOK rating band, the titled players of the 2018 tournament, the engine).
// Tapping a move (in the list or on the board) plays it here; back, forward and start
// walk the line explored. The game's "Explore this position" opens the view at the
// position the game shows.
//
// Beside each move: the engine's evaluation (the mover's chance to win after it, from a
// short search) with its best move marked even where no game played it, and how often
// players of the rating chosen play it (the human model). The counts come first (GET
// /api/openings), these columns when the search is done (GET /api/openings/engine).
// "My games" is the same view over a file of the player's own games (POST
// /api/openings/games, opened by showOpeningsOfGames): the player's moves as White, as
// Black or both, each with the player's own results, beside the engine's and the players'.
//
// Everything comes from those calls (tools/serve/openings_api.h): the moves, their counts
// and the position each leads to, so the page computes no rule. index.html only
// gives the view a header button (#openings-open), the game's button (#openings-here)
// and an empty section (#openings); like the Rules guide it takes the place of the game
// (#play and the side column) while open and gives them back on close, and like the
// Puzzles view it sets aside the settings that only start a game (style.css).
import { api } from "./api.js";
import { boardGrid, boardSideName } from "./board.js";
import { gameName, shownPosition } from "./game.js";
import { tr, trn } from "./i18n.js";
import { closePuzzles } from "./puzzles.js";
import { viewInPlaceOfGame } from "./game_cover.js";

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
// The source of a player's own games (showOpeningsOfGames), offered once there are some.
const kMine = "mine";
const kColours = [
  { value: "both", words: tr_noop("As White and as Black") },
  { value: "white", words: tr_noop("As White") },
  { value: "black", words: tr_noop("As Black") },
];
// The human model's rating that fits a source: the middle of a PlayOK band, else 1500.
const kBandRatings = { "below-1200": 1100, "1200-1499": 1350, "1500-1799": 1650, "1800-up": 1900 };
const kDefaultRating = 1500;

let line = [];        // the positions explored: [{position, move (notation leading here)}]
let at = 0;           // the index in `line` shown
let shown = null;     // the API's last answer, null while none
const view = viewInPlaceOfGame("openings");  // in the game's place while open
let asked = 0;        // the number of the last request: an older answer is dropped
let mine = null;      // the player's games shown under "My games": {game, pgn, player, key}
let rating = null;    // the rating the player chose for the human model; null: the source's
let columns = null;   // the engine's and the human model's answer for `shown`, null until it comes

function isOpen() {
  return view.isOpen();
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
  select.addEventListener("change", () => {
    rating = null;  // a new source: its own players' rating
    // My games keeps the game of the player's games, which may not be the page's: a
    // source of another game starts from that game's start.
    const game = mineChosen() ? mine.game : gameName();
    if (el("openings").dataset.game !== game) {
      line = [];
      at = 0;
    }
    ask();
  });
  chooser.append(words, select);

  const colour = make("select", "openings-colour");
  for (const c of kColours) {
    const o = make("option", null, null, tr(c.words));
    o.value = c.value;
    o.dataset.i18n = c.words;
    colour.append(o);
  }
  colour.hidden = true;
  colour.addEventListener("change", () => ask());
  chooser.append(colour);

  const rated = make("label", null, "openings-source");
  const ratedWords = make("span", null, null, tr("Players rated"));
  ratedWords.dataset.i18n = tr_noop("Players rated");
  const ratings = make("select", "openings-human-rating");
  ratings.addEventListener("change", () => {
    rating = Number(ratings.value);
    askColumns();
  });
  rated.append(ratedWords, ratings);
  rated.hidden = true;  // until the human model's range is known

  const nav = make("div", "openings-nav", "buttons");
  nav.append(button("openings-start", tr_noop("Start"), () => go(0)),
             button("openings-back", tr_noop("Back"), () => go(at - 1)),
             button("openings-forward", tr_noop("Forward"), () => go(at + 1)));

  section.append(head, make("p", "openings-about", "muted small"), chooser, rated,
                 make("p", "openings-line"), nav, make("p", "openings-status", null),
                 make("div", "openings-board"), make("div", "openings-moves"),
                 make("p", "openings-legend", "muted small"));
}

// The "My games" source in the chooser, once the player's games are given.
function offerMine() {
  const select = el("openings-source");
  if (!mine || select.querySelector(`option[value="${kMine}"]`)) return;
  const o = make("option", null, null, tr("My games"));
  o.value = kMine;
  o.dataset.i18n = tr_noop("My games");
  select.prepend(o);
}

function mineChosen() {
  return !!mine && el("openings-source").value === kMine;
}

// The rating the human model's column is for: the one chosen, else the source's.
function columnRating() {
  if (rating) return rating;
  if (mineChosen()) return (shown && shown.about && shown.about.rating) || kDefaultRating;
  const s = kSources.find((k) => k.value === el("openings-source").value);
  return (s && kBandRatings[s.band]) || kDefaultRating;
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

// Where the numbers come from for the player's own games.
function mineWords(about) {
  const parts = [tr("{player}: {white} as White, {black} as Black",
                    { player: about.player, white: about.as_white, black: about.as_black })];
  if (about.skipped.length)
    parts.push(trn("{n} game could not be read", "{n} games could not be read", about.skipped.length));
  return parts.join(" · ");
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

// One move's row: its games, a bar of the results, the counts and mean rating, and the
// engine's and the players' columns (filled in by drawColumns). For the player's own games
// the results are the player's, whoever made the move.
function moveRow(m) {
  const counts = mineChosen() ? m.player : m;
  const row = make("button", null, "openings-move");
  row.type = "button";
  row.dataset.move = m.move;
  row.dataset.notation = m.notation;
  row.dataset.games = m.games;
  const top = make("span", null, "openings-move-top");
  top.append(make("strong", null, "openings-notation", m.notation),
             make("span", null, "openings-games",
                  trn("{n} game", "{n} games", m.games) + ` · ${percent(m.share)}`));
  if (mineChosen())
    top.append(make("span", null, "openings-by muted small",
                    m.by === "opponents" ? tr("their reply") : tr("your move")));
  const words = mineChosen()
    ? tr("you won {wins} · drew {draws} · lost {losses}", { wins: counts.wins, draws: counts.draws, losses: counts.losses })
    : tr("won {wins} · drawn {draws} · lost {losses}", { wins: counts.wins, draws: counts.draws, losses: counts.losses });
  const meanRating = make("span", null, "openings-rating",
                          m.mean_rating === null ? "" : tr("mean rating {rating}", { rating: m.mean_rating }));
  row.append(top, resultBar(counts), make("span", null, "openings-counts", words), meanRating,
             make("span", null, "openings-columns muted small"));
  row.addEventListener("click", () => play(m));
  return row;
}

function drawMoves(a) {
  const list = el("openings-moves");
  list.replaceChildren();
  for (const m of a.moves) list.append(moveRow(m));
}

// The engine's and the human model's columns of `columns` into the rows of `shown`; the
// engine's best move and the players' likeliest get rows of their own when no game here
// played them.
function drawColumns() {
  const a = shown;
  const c = columns;
  const list = el("openings-moves");
  for (const r of list.querySelectorAll(".openings-unplayed")) r.remove();
  if (!a || !c || c.position !== a.position) return;
  const likeliest = c.moves.reduce((best, m) => (m.human !== null && (!best || m.human > best.human) ? m : best), null);
  for (const m of c.moves) {
    let row = list.querySelector(`.openings-move[data-move="${m.move}"]`);
    if (!row) {
      if (!m.best && m !== likeliest) continue;
      row = make("button", null, "openings-move openings-unplayed");
      row.type = "button";
      row.dataset.move = m.move;
      row.dataset.notation = m.notation;
      const top = make("span", null, "openings-move-top");
      top.append(make("strong", null, "openings-notation", m.notation),
                 make("span", null, "openings-games muted", tr("no game played it here")));
      row.append(top, make("span", null, "openings-columns muted small"));
      row.addEventListener("click", () => play(m));
      list.append(row);
    }
    row.classList.toggle("openings-best", m.best);
    const parts = [];
    if (m.best) parts.push(tr("the engine's best"));
    if (m.engine) parts.push(tr("engine: {percent} to win", { percent: percent(m.engine.win) }));
    if (m.human !== null) parts.push(tr("players rated {rating}: {percent}", { rating: c.rating, percent: percent(m.human) }));
    const cell = row.querySelector(".openings-columns");
    cell.textContent = parts.join(" · ");
    cell.classList.toggle("muted", !m.best);
  }
  const board = el("openings-board").querySelector(".board-grid");
  if (board) drawBoard(a, c);
}

// The rating chooser: the human model's range in steps of 100, the rating asked for shown.
function drawRatings(c) {
  const select = el("openings-human-rating");
  const range = c && c.rating_range;
  select.closest("label").hidden = !range;
  if (!range) return;
  const values = [];
  for (let r = Math.ceil(range.min / 100) * 100; r <= range.max; r += 100) values.push(r);
  if (!values.includes(c.rating)) values.push(c.rating);
  values.sort((x, y) => x - y);
  const now = [...select.options].map((o) => Number(o.value));
  if (now.join() !== values.join())
    select.replaceChildren(...values.map((r) => {
      const o = make("option", null, null, String(r));
      o.value = r;
      return o;
    }));
  select.value = c.rating;
}

function draw() {
  const a = shown;
  if (!a) return;
  el("openings-about").textContent = mineChosen()
    ? tr("Your games: {sources}. Results are yours, whoever made the move.", { sources: mineWords(a.about) })
    : tr("Where the numbers come from: {sources}. Results are from the view of the player who made the move.",
         { sources: aboutWords(a.about) });
  // The games that could not be read, each with its number, line and reason, on hover.
  el("openings-about").title = mineChosen() ? a.about.skipped.join("\n") : "";
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
  drawBoard(a, columns);
  drawMoves(a);
  el("openings-legend").textContent = !a.moves.length ? ""
    : mineChosen()
      ? tr("Most played first. The bar: green the games you won, grey drawn, red lost after the move.")
      : tr("Most played first. The bar: green the games won, grey drawn, red lost by the player who made the move.");
  drawColumns();
}

// The board; the moves of the list (and the engine's and players' rows) can be played on
// it too, other holes stay still.
function drawBoard(a, c) {
  const extra = c && c.position === a.position ? c.moves.filter((m) => m.best) : [];
  const moves = a.moves.concat(extra.filter((m) => !a.moves.some((x) => x.move === m.move)));
  const board = { ...a.board, legal: moves.map((m) => m.move) };
  el("openings-board").replaceChildren(boardGrid(board, {
    togyz: a.game === "togyz", npits: a.board.pits[0].length, bottom: 0, markToMove: true,
    play: (pit) => play(moves.find((m) => m.move === pit)),
  }));
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

// Asks for the position `line[at]` with the source chosen, and draws the answer; then
// asks for the engine's and the players' columns.
async function ask() {
  const s = kSources.find((k) => k.value === el("openings-source").value) || kSources[0];
  const own = mineChosen();
  el("openings-colour").hidden = !own;
  const game = own ? mine.game : gameName();
  const position = line.length ? line[at].position : "";
  const query = `/api/openings?game=${encodeURIComponent(game)}&source=${s.source}` +
    (s.band ? `&band=${s.band}` : "") + (position ? `&position=${encodeURIComponent(position)}` : "");
  // The games go once; later steps name them by the key the engine answered with, and
  // send them again only when the engine no longer keeps them (409).
  const mineQuery = async () => {
    const games = mine;
    const ask = (named) => api("POST", "/api/openings/games", {
      game, colour: el("openings-colour").value, position,
      ...(named ? { games_key: games.key } : { pgn: games.pgn, player: games.player || "" }),
    });
    let a;
    try {
      a = await ask(Boolean(games.key));
    } catch (e) {
      if (!games.key || e.status !== 409) throw e;
      games.key = null;
      a = await ask(false);
    }
    games.key = a.games_key;
    return a;
  };
  const me = ++asked;
  el("openings").dataset.game = game;
  try {
    const a = own ? await mineQuery() : await api("GET", query);
    if (me !== asked) return;
    if (!line.length) line = [{ position: a.position, move: "" }];
    shown = a;
    if (!columns || columns.position !== a.position) columns = null;
    el("openings").dataset.position = a.position;
    el("openings").dataset.columns = "";
    draw();
    askColumns();
  } catch (e) {
    if (me !== asked) return;
    drawRefusal(e.message);
  }
}

// The engine's and the human model's columns for the position shown, when they come:
// the server answers `pending` until its search is done, and is asked again a moment
// later (at most kColumnTries times).
const kColumnTries = 200;
const kColumnWaitMs = 150;
async function askColumns(tries = 0) {
  const a = shown;
  if (!a) return;
  if (a.board.over) {  // no move to judge: nothing to fill
    el("openings").dataset.columns = a.position;
    return;
  }
  const me = asked;
  const query = `/api/openings/engine?game=${encodeURIComponent(a.game)}` +
    `&position=${encodeURIComponent(a.position)}&rating=${columnRating()}`;
  try {
    const c = await api("GET", query);
    if (me !== asked || shown !== a) return;
    columns = c;
    drawRatings(c);
    drawColumns();
    if (c.pending) {
      if (tries < kColumnTries) setTimeout(() => askColumns(tries + 1), kColumnWaitMs);
      return;
    }
    el("openings").dataset.columns = c.position;
  } catch (e) {
    if (me !== asked) return;
    const cell = make("p", null, "muted small", e.message);
    el("openings-legend").replaceChildren(cell);
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
  offerMine();
  line = position ? [{ position, move: "" }] : [];
  at = 0;
  shown = null;
  if (!isOpen()) {
    closePuzzles();
    view.show();
  }
  window.scrollTo(0, 0);
  ask();
}

function close() {
  if (!isOpen()) return;
  view.hide();
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

// Opens the view over a player's own games: `pgn` a file of records in `game` ("togyz",
// the API's game names), `player` the name whose moves they are ("" or absent: the name
// playing most of them). The source chooser then offers "My games", chosen now.
export function showOpeningsOfGames({ game, pgn, player }) {
  mine = { game: game || "togyz", pgn, player: player || "", key: null };
  if (!el("openings-board")) build();
  offerMine();
  el("openings-source").value = kMine;
  rating = null;
  open("");
}
