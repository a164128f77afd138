// The Your games view of the board page: the player's own games kept in the browser
// (game_store.js): every game played to its end here and every game imported from a
// record file (a PlayOK export of many games, or the project's PGN). It lists them from
// the player's side (their name chosen; by default the name playing most of the games),
// filters them by opponent, result, date, opening and colour, opens one into the game
// with its analysis, exports all of them as one file and deletes them. In the background
// it asks the engine what each game says of the player's rating and their accuracy (POST
// /api/games/evidence, one game at a time, kept with the game so that a visit later
// costs nothing) and the rating over all of them (POST /api/games/rating): "Your estimated
// PlayOK rating: 1,450 (1,380–1,530) from 212 games". A game's evidence is engine work
// that the engine queues one move at a time beside the game's own (a move waits for one
// judged move at most), so the pass goes on while the game is played.
//
// index.html gives the view a header button (#games-open) and an empty section (#games);
// like the Openings view it takes the place of the game (#play and the side column) while
// open and gives them back on close.
import { api, request, toast } from "./api.js";
import { boardSideName } from "./board.js";
import { gameName, loadAndAnalyse } from "./game.js";
import { addGames, allGames, deleteGames, getMeta, putGame, setMeta } from "./game_store.js";
import { currentLanguage, keepNumbersWithEndings, tr, trn } from "./i18n.js";
import { showOpeningsOfGames } from "./openings.js";
import { closePuzzles } from "./puzzles.js";
import { viewInPlaceOfGame } from "./game_cover.js";

const el = (id) => document.getElementById(id);
// A message id marked for tools/po/extract.sh, translated where it is shown.
const tr_noop = (msgid) => msgid;

// The largest file imported: the engine's request limit (tools/serve/api_router.h).
const maxImportBytes = 4 * 1024 * 1024;
// How often the estimate over all games is asked for again while the pass runs.
const ratingEveryGames = 10;
// The most time between two looks at a game's evidence while the engine works it out (a
// game of 100 moves takes about a second to judge; the next look is when half the moves
// left should be judged at the pace so far, so that little time passes between the
// answer and the look that finds it).
const evidencePollMs = 100;

let games = [];        // every game kept, oldest first
let player = "";       // the player's name: the side each game is seen from
const view = viewInPlaceOfGame("games");  // in the game's place while open
let pass = null;       // the background rating pass while it runs: {stop}
let lastRating = null; // the last estimate over all games {player, rating, low, high, games}

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

// An element whose words are the message `msgid` (translated again on a new language).
function words(tag, id, cls, msgid) {
  const e = make(tag, id, cls, tr(msgid));
  e.dataset.i18n = msgid;
  return e;
}

function button(id, msgid, onClick, cls) {
  const b = words("button", id, cls, msgid);
  b.type = "button";
  b.addEventListener("click", onClick);
  return b;
}

function labelled(msgid, control) {
  const l = make("label");
  l.append(words("span", null, null, msgid), " ", control);
  return l;
}

function select(id, options) {
  const s = make("select", id);
  for (const [value, msgid] of options) {
    const o = words("option", null, null, msgid);
    o.value = value;
    s.append(o);
  }
  s.addEventListener("change", drawList);
  return s;
}

function build() {
  const section = el("games");
  section.replaceChildren();
  const head = make("div", null, "games-head");
  head.append(words("h2", null, null, tr_noop("Your games")),
              button("games-close", tr_noop("Back to the game"), close));

  const file = make("input", "games-import");
  file.type = "file";
  file.accept = ".pgn,.txt,text/plain";
  file.addEventListener("change", () => {
    importFile(file.files[0]);
    file.value = "";
  });
  const importButton = make("label", null, "file-button");
  importButton.append(words("span", null, null, tr_noop("Import games")), file);
  const name = make("input", "games-player");
  name.type = "text";
  name.setAttribute("list", "games-names");
  name.addEventListener("change", () => choosePlayer(name.value.trim()));
  const tools = make("div", null, "games-tools");
  tools.append(importButton, labelled(tr_noop("Your name in the games"), name), make("datalist", "games-names"));

  const filters = make("div", "games-filters", "games-filters");
  const text = (id, msgid) => {
    const i = make("input", id);
    i.type = "search";
    i.addEventListener("input", drawList);
    return labelled(msgid, i);
  };
  const date = (id, msgid) => {
    const i = make("input", id);
    i.type = "date";
    i.addEventListener("change", drawList);
    return labelled(msgid, i);
  };
  filters.append(
    text("games-opponent", tr_noop("Opponent")),
    labelled(tr_noop("Result"), select("games-result", [["", tr_noop("any")], ["win", tr_noop("won")],
                                                        ["draw", tr_noop("drawn")], ["loss", tr_noop("lost")]])),
    labelled(tr_noop("Colour"), select("games-colour", [["", tr_noop("any")], ["0", tr_noop("White")],
                                                        ["1", tr_noop("Black")]])),
    date("games-from", tr_noop("from")), date("games-to", tr_noop("to")),
    text("games-opening", tr_noop("Opening (first moves)")));

  const table = make("table", "games-table", "games-table");
  const headRow = make("tr");
  // Open and Delete first: on a phone the table scrolls sideways, and they stay in reach.
  for (const msgid of ["", tr_noop("Date"), tr_noop("Opponent"), tr_noop("Colour"), tr_noop("Result"),
                       tr_noop("Opening"), tr_noop("Accuracy"), tr_noop("Played like")])
    headRow.append(msgid ? words("th", null, null, msgid) : make("th"));
  table.append(make("thead"), make("tbody", "games-rows"));
  table.tHead.append(headRow);

  const end = make("div", null, "buttons");
  end.append(button("games-openings", tr_noop("Openings of these games"), exploreOpenings),
             button("games-export", tr_noop("Export all games"), exportAll),
             button("games-delete-all", tr_noop("Delete all games"), deleteAll));
  section.append(head, tools, make("div", "games-imported", "games-imported"),
                 make("p", "games-rating", "games-rating"), make("p", "games-progress", "muted small"),
                 filters, make("p", "games-count", "muted"), make("div", null, "games-scroll"), end);
  section.querySelector(".games-scroll").append(table);
}

// --- The games from the player's side ---------------------------------------------------

// The side `name` plays in game `g` (0 White, 1 Black), or -1. A game played in this page
// is the player's whatever their name: the side they played (none when they played both).
function colourOf(g, name) {
  if (g.source === "played" && g.colour >= 0) return g.colour;
  if (g.white === name && g.black !== name) return 0;
  if (g.black === name && g.white !== name) return 1;
  return -1;
}

// The player's score in `g` from side `c`: 1, 0.5, 0, or null without a result.
function scoreOf(g, c) {
  const white = { "1-0": 1, "0-1": 0, "1/2-1/2": 0.5 }[g.result];
  if (white === undefined || c < 0) return null;
  return c === 0 ? white : 1 - white;
}

// The name playing most of the kept games (the first such in the list on a tie).
function mostFrequentName() {
  const count = new Map();
  for (const g of games.filter((x) => x.source !== "played"))
    for (const n of [g.white, g.black])
      if (n && n !== "?") count.set(n, (count.get(n) || 0) + 1);
  let best = "";
  for (const [n, c] of count) if (!best || c > count.get(best)) best = n;
  return best;
}

// "2025.11.09" (PGN) as "2025-11-09" (an <input type=date>'s value); "" when unknown.
function isoDate(pgnDate) {
  const m = /^(\d{4})\.(\d{2})\.(\d{2})$/.exec(pgnDate || "");
  return m ? `${m[1]}-${m[2]}-${m[3]}` : "";
}

// Numbers in the reader's language ("1,450", "1 450"); one formatter per language, since a
// list of a thousand games formats thousands of numbers.
let numberFormat = null;
// Kazakh and Kyrgyz write numbers as Russian does (CLDR: digits grouped by a non-breaking
// space, a decimal comma), but Chromium's own locale data formats "kk" as English
// ("1,342") and lacks "ky", so both borrow Russian's format.
const NUMBER_LOCALE = { kk: "ru", ky: "ru" };

function number(n) {
  if (!numberFormat || numberFormat.lang !== currentLanguage()) {
    const lang = currentLanguage();
    numberFormat = { lang, format: new Intl.NumberFormat(NUMBER_LOCALE[lang] || lang) };
  }
  return numberFormat.format.format(n);
}

// The games the filters let through, the latest date first (games of one day: the last
// kept first).
function filtered() {
  const opponent = el("games-opponent").value.trim().toLowerCase();
  const result = el("games-result").value;
  const colour = el("games-colour").value;
  const from = el("games-from").value, to = el("games-to").value;
  const opening = el("games-opening").value.trim().replace(/\s+/g, " ");
  const out = [];
  for (const g of games) {
    const c = colourOf(g, player);
    const other = c === 1 ? g.white : g.black;
    if (opponent && !(c >= 0 ? other : `${g.white} ${g.black}`).toLowerCase().includes(opponent)) continue;
    if (colour !== "" && String(c) !== colour) continue;
    const score = scoreOf(g, c);
    if (result === "win" && score !== 1) continue;
    if (result === "draw" && score !== 0.5) continue;
    if (result === "loss" && score !== 0) continue;
    const d = isoDate(g.date);
    if ((from && (!d || d < from)) || (to && (!d || d > to))) continue;
    if (opening && !(g.opening || "").startsWith(opening)) continue;
    out.push(g);
  }
  return out.sort((x, y) => isoDate(y.date).localeCompare(isoDate(x.date)) || y.added - x.added || y.order - x.order);
}

function resultWords(score) {
  return score === 1 ? tr("won") : score === 0 ? tr("lost") : score === 0.5 ? tr("drawn") : "–";
}

function ratingText(r) {
  return r === null || r === undefined ? "" : ` (${r})`;
}

function drawList() {
  if (!el("games-rows")) return;
  const shown = filtered();
  el("games-count").textContent = trn("{shown} of {n} game shown.", "{shown} of {n} games shown.", games.length,
                                      { shown: number(shown.length), n: number(games.length) });
  const rows = document.createDocumentFragment();
  for (const g of shown) {
    const c = colourOf(g, player);
    const row = make("tr");
    row.dataset.id = g.id;
    const opponent = c === 0 ? g.black + ratingText(g.black_rating)
      : c === 1 ? g.white + ratingText(g.white_rating) : `${g.white} – ${g.black}`;
    const e = g.evidence && g.evidence.player === player ? g.evidence : null;
    const cells = [isoDate(g.date) || g.date || "", opponent,
                   c >= 0 ? boardSideName(true, c) : "", `${resultWords(scoreOf(g, c))} ${g.result}`,
                   g.opening || "",
                   e && e.accuracy !== null ? `${Math.round(e.accuracy)}%` : "",
                   e && e.played_like ? number(e.played_like.rating) : ""];
    const actions = make("td", null, "games-actions");
    actions.append(button(null, tr_noop("Open"), () => openGame(g), "games-open-game"),
                   button(null, tr_noop("Delete"), () => deleteOne(g), "games-delete"));
    row.append(actions);
    for (const text of cells) row.append(make("td", null, null, text));
    rows.append(row);
  }
  el("games-rows").replaceChildren(rows);
  const names = el("games-names");
  const counted = new Set();
  names.replaceChildren();
  for (const g of games)
    for (const n of [g.white, g.black])
      if (n && !counted.has(n)) {
        counted.add(n);
        const o = make("option");
        o.value = n;
        names.append(o);
      }
  drawRating();
}

function drawRating() {
  const line = el("games-rating");
  if (!line) return;
  const r = lastRating && lastRating.player === player ? lastRating : null;
  line.textContent = r
    ? trn("Your estimated PlayOK rating: {rating} ({low}–{high}) from {n} game.",
          "Your estimated PlayOK rating: {rating} ({low}–{high}) from {n} games.", r.games,
          { rating: number(r.rating), low: number(r.low), high: number(r.high), n: number(r.games) })
    : "";
}

// --- Import -------------------------------------------------------------------------------

async function importFile(file) {
  if (!file) return;
  const said = el("games-imported");
  said.replaceChildren();
  const say = (text) => said.append(make("p", null, null, text));
  if (file.size > maxImportBytes) {
    say(tr("{file}: the file is larger than 4 MB; split it into smaller files.", { file: file.name }));
    return;
  }
  const started = performance.now();
  const text = await file.text();
  if (!text.trim() || text.includes("\u0000") || text.includes("\uFFFD")) {
    say(tr("{file} is not a game record: it holds no text.", { file: file.name }));
    return;
  }
  let listed;
  try {
    performance.mark("kz-import-read");
    listed = (await api("POST", "/api/record/games", { pgn: text, game: gameName(), texts: true })).games;
    performance.mark("kz-import-listed");
  } catch (e) {
    say(tr("{file} was not imported: {error}", { file: file.name, error: e.message }));
    return;
  }
  const skipped = listed.filter((g) => g.error || !g.text);
  const whole = listed.filter((g) => !g.error && g.text).map((g) => ({
    source: "imported", file: file.name, index: g.index, white: g.white, black: g.black,
    white_rating: g.white_rating, black_rating: g.black_rating, result: g.result, date: g.date,
    time: g.time, time_control: g.time_control, event: g.event, plies: g.plies, opening: g.opening,
    text: g.text, evidence: null,
  }));
  const counts = whole.length ? await addGames(whole) : { added: 0, duplicates: 0 };
  performance.mark("kz-import-stored");
  games = await allGames();
  if (!player) await choosePlayer(mostFrequentName(), true);
  say(trn("{file}: {n} game imported", "{file}: {n} games imported", counts.added, { file: file.name, n: number(counts.added) }) +
      (counts.duplicates ? ", " + trn("{n} already kept", "{n} already kept", counts.duplicates, { n: number(counts.duplicates) }) : "") +
      (skipped.length ? ", " + trn("{n} skipped:", "{n} skipped:", skipped.length, { n: number(skipped.length) }) : "."));
  if (skipped.length) {
    const list = make("ul", "games-skipped");
    for (const g of skipped)
      // The engine's reason names the game's number and line ("game 317 (..., line 4410), ply 12 ...").
      list.append(make("li", null, null, keepNumbersWithEndings(g.error || "")));
    said.append(list);
  }
  drawList();
  // From the file chosen to the list drawn (the browser test reads it: tools/web_test.py).
  el("games").dataset.importSeconds = ((performance.now() - started) / 1000).toFixed(2);
  performance.mark("kz-import-drawn");
  startPass();
}

// --- The games played here ----------------------------------------------------------------

// Keeps the game of state `s`, just ended in this page, with its record.
async function keepPlayedGame(s) {
  try {
    const res = await request("GET", `/api/record?session=${encodeURIComponent(s.session)}`);
    if (!res.ok) return;
    const text = await res.text();
    const tag = (name) => {
      const m = new RegExp(`^\\[${name} "([^"]*)"\\]`, "m").exec(text);
      return m ? m[1] : "";
    };
    const human = s.sides.indexOf(s.human);
    await addGames([{
      source: "played", file: "", index: 0, white: tag("White"), black: tag("Black"),
      white_rating: null, black_rating: null, result: tag("Result") || s.board.result, date: tag("Date"),
      time: new Date().toTimeString().slice(0, 8), time_control: s.clock ? s.clock.control : "",
      event: tag("Event"), plies: s.moves.length, level: s.level, colour: human,
      opening: s.moves.slice(0, 4).map((m) => m.notation).join(" "), text, evidence: null,
    }]);
    games = await allGames();
    if (isOpen()) drawList();
  } catch (e) {
    // The server is out of reach: this game is not kept (the page says the rest).
  }
}

// --- Open, export, delete -----------------------------------------------------------------

async function openGame(g) {
  close();
  await loadAndAnalyse(g.text);
}

// The Openings view over the games the filters let through, from the player's side: where
// they score well and badly, with the engine's and the players' choices beside theirs.
function exploreOpenings() {
  const shown = filtered();
  if (!shown.length) {
    toast(tr("No game is shown to explore."), 4000, "info");
    return;
  }
  close();
  showOpeningsOfGames({ game: gameName(), pgn: shown.map((g) => g.text.trimEnd() + "\n").join("\n"), player });
}

function exportAll() {
  if (!games.length) {
    toast(tr("There is no game to export yet."), 4000, "info");
    return;
  }
  const blob = new Blob([games.map((g) => g.text.trimEnd() + "\n").join("\n")], { type: "text/plain" });
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = "kumalak-my-games.pgn";
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

async function deleteOne(g) {
  await deleteGames([g.id]);
  games = await allGames();
  drawList();
  refreshRating();
}

async function deleteAll() {
  if (!games.length) return;
  if (!window.confirm(trn("Delete {n} game from this browser?", "Delete all {n} games from this browser?", games.length,
                          { n: number(games.length) }))) return;
  await deleteGames(games.map((g) => g.id));
  games = [];
  lastRating = null;
  await setMeta("rating", null);
  el("games-imported").replaceChildren();
  drawList();
}

// --- The rating over all games, in the background ----------------------------------------

// Sees the games from `name`'s side from now on; `quietly`: neither draws nor starts the
// rating pass (the caller does both).
async function choosePlayer(name, quietly = false) {
  if (name === player) return;
  player = name;
  await setMeta("player", name);
  if (el("games-player")) el("games-player").value = name;
  if (quietly) return;
  drawList();
  startPass();
}

// The player's games the rating uses: those in which they play one side.
function playersGames() {
  return games.filter((g) => colourOf(g, player) >= 0);
}

const rounded = (v) => (v || []).map((x) => (x === null ? null : Math.round(x * 1000) / 1000));

// Asks for the estimate over every game whose evidence is in, and keeps it.
async function refreshRating() {
  const mine = playersGames().filter((g) => g.evidence && g.evidence.player === player && g.evidence.loglik);
  if (!mine.length) {
    lastRating = null;
    drawRating();
    return;
  }
  try {
    const r = await api("POST", "/api/games/rating", {
      game: "togyz", games: mine.map((g) => ({ player: g.evidence.loglik.player, opponent: g.evidence.loglik.opponent })),
    });
    lastRating = { player, rating: r.rating, low: r.low, high: r.high, games: r.games };
    await setMeta("rating", lastRating);
  } catch (e) {
    el("games-progress").textContent = e.message;
  }
  drawRating();
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// How long the pass waits before asking again when the engine does not answer at all
// (status 0: `kumalak serve` stopped or out of reach).
const unreachableRetryMs = 5000;

// What game `g` says of `side`'s rating: the engine queues the work (POST) and is asked
// for it (GET) until it is done; null when pass `mine` stopped meanwhile (its session is
// closed, and the engine drops the rest of the work). A session the engine no longer
// knows (404: the server restarted, or closed it unasked-for) starts the game's work
// again, at most `restarts` times.
async function gameEvidence(g, side, mine, restarts = 2) {
  const started = performance.now();
  let e = await api("POST", "/api/games/evidence", { pgn: g.text, player: side, visits: 100 });
  while (!e.done) {
    const pace = e.judged > 0 ? (performance.now() - started) / e.judged : 0;
    const wait = pace > 0 ? Math.min(evidencePollMs, Math.max(10, (e.moves - e.judged) * pace / 2)) : 50;
    await sleep(wait);
    if (mine.stop) {
      api("POST", "/api/close", { session: e.session }).catch(() => {});
      return null;
    }
    try {
      e = await api("GET", `/api/games/evidence?session=${encodeURIComponent(e.session)}`);
    } catch (err) {
      if (err.status !== 404 || restarts === 0) throw err;
      return gameEvidence(g, side, mine, restarts - 1);
    }
  }
  return e;
}

// Works through the player's games without evidence, one at a time, saying how far it
// is, its rate and the time left; starts again from scratch when the player changes.
function startPass() {
  if (pass) pass.stop = true;
  const mine = { stop: false };
  pass = mine;
  (async () => {
    const todo = playersGames().filter((g) => !(g.evidence && g.evidence.player === player));
    const progress = el("games-progress");
    if (!todo.length) {
      if (progress) progress.textContent = "";
      if (!lastRating || lastRating.player !== player) await refreshRating();
      return;
    }
    let busy = 0;  // the seconds spent working
    let done = 0, sinceRating = 0;
    for (const g of todo) {
      if (mine.stop) return;
      const started = performance.now();
      const rate = done > 0 ? done / busy : 0;
      if (el("games-progress"))
        el("games-progress").textContent = done > 0
          ? trn("Estimating your rating: {done} of {n} game, {rate} games a second, about {minutes} min left.",
                "Estimating your rating: {done} of {n} games, {rate} games a second, about {minutes} min left.",
                todo.length, { done: number(done), n: number(todo.length), rate: rate.toFixed(2),
                               minutes: number(Math.max(1, Math.ceil((todo.length - done) / rate / 60))) })
          : trn("Estimating your rating: {done} of {n} game.", "Estimating your rating: {done} of {n} games.",
                todo.length, { done: 0, n: number(todo.length) });
      let evidence = null;
      while (!evidence) {
        try {
          const side = colourOf(g, player) === 0 ? g.white : g.black;
          const e = await gameEvidence(g, side, mine);
          if (!e) return;
          evidence = { player, loglik: { player: rounded(e.player), opponent: rounded(e.opponent) },
                       played_like: e.played_like, accuracy: e.accuracy };
        } catch (e) {
          if (e.status === 400) {
            evidence = { player, loglik: null, played_like: null, accuracy: null, error: e.message };
          } else if (e.status === 0) {
            // The engine out of reach: said ("the page will try again"), and this game
            // asked for again a little later.
            if (el("games-progress")) el("games-progress").textContent = e.message;
            await sleep(unreachableRetryMs);
            if (mine.stop) return;
          } else {
            // No human model, or the engine failed: said, and the pass stops.
            if (el("games-progress")) el("games-progress").textContent = e.message;
            pass = null;
            return;
          }
        }
      }
      if (mine.stop) return;
      g.evidence = evidence;
      await putGame(g);
      // The view may have read the games again meanwhile (closed and opened): the list it
      // holds now gets the evidence too, or the estimate would leave this game out.
      const current = games.find((x) => x.id === g.id);
      if (current) current.evidence = evidence;
      ++done;
      if (isOpen()) {
        const row = el("games-rows") && el("games-rows").querySelector(`tr[data-id="${g.id}"]`);
        if (row) {
          row.children[6].textContent = evidence.accuracy !== null ? `${Math.round(evidence.accuracy)}%` : "";
          row.children[7].textContent = evidence.played_like ? number(evidence.played_like.rating) : "";
        }
      }
      if (++sinceRating >= ratingEveryGames || done === todo.length) {
        sinceRating = 0;
        await refreshRating();
      }
      busy += (performance.now() - started) / 1000;
    }
    if (el("games-progress")) {
      el("games").dataset.passRate = (done / busy).toFixed(3);
      el("games-progress").textContent = "";
    }
    if (pass === mine) pass = null;
  })();
}

// --- Open and close -----------------------------------------------------------------------

async function open() {
  if (!el("games-rows")) build();
  if (!isOpen()) {
    closePuzzles();
    // The Openings view closes its own way (its Back button); the Rules guide follows
    // this button by itself (guide.js).
    for (const id of ["openings-close"]) {
      const b = el(id);
      if (b && b.offsetParent !== null) b.click();
    }
    view.show();
  }
  window.scrollTo(0, 0);
  games = await allGames();
  if (!player) player = (await getMeta("player")) || mostFrequentName();
  lastRating = lastRating || (await getMeta("rating")) || null;
  el("games-player").value = player;
  drawList();
  if (!pass) startPass();
}

function close() {
  if (!isOpen()) return;
  view.hide();
  window.scrollTo(0, 0);
}

// Wires the Your games button, keeps every game that ends in the page, and follows the
// page's language while open. The other views' buttons close it first.
export function startYourGames() {
  const b = el("games-open");
  if (!b || !el("games")) return;
  b.setAttribute("aria-pressed", "false");
  b.addEventListener("click", () => (isOpen() ? close() : open()));
  el("setup").addEventListener("click", (e) => {
    if (e.target.closest("#new-game, #puzzles-open, #guide-open, #openings-open")) close();
  }, true);
  document.addEventListener("kz-game-ended", (e) => keepPlayedGame(e.detail));
  new MutationObserver(() => {
    if (isOpen()) drawList();
  }).observe(document.documentElement, { attributes: true, attributeFilter: ["lang"] });
}
