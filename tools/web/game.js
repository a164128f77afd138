// The game of the board page: the state the server keeps for this tab's game (docs/serve.md),
// what the person's clicks ask of it, the settings form and the review of earlier
// positions. Everything about the games (rules, legal moves, notation, the engine) comes
// from the server's JSON API; this module only sends what the person clicks and has the
// views (game_view.js, analysis_view.js) draw what the server says. Each browser tab
// keeps its own game: the session id lives in sessionStorage, and a duplicated tab gets
// one of its own (tabs.js). The game is also kept in the browser (kept_game.js), and
// comes back when the session is gone. A record file is read and its game chosen by
// record_chooser.js.
import { api, request, toast } from "./api.js";
import { drawAnalysis } from "./analysis_view.js";
import { clockSetting, drawClocks, showClockSetting, startClockSetting } from "./clock.js";
import { sideTitle } from "./game_words.js";
import { clearHinted, drawBoard, drawHint, drawMoves, drawStatus, drawThinking, forgetShownPits,
         humanSide } from "./game_view.js";
import { startLanguageMenu, tr, trn } from "./i18n.js";
import { forgetKeptGame, keepGame, keepText, keptGame, keptText } from "./kept_game.js";
import { chooseRecordGame, startRecordChooser } from "./record_chooser.js";
import { animateSowing, stopSowing } from "./sowing.js";
import { SITE } from "./site.js";
import { answerForSession, sessionInOtherTab } from "./tabs.js";

const $ = (id) => document.getElementById(id);
let session = sessionStorage.getItem("kz-session");
let state = null;        // the last state from the server
let review = null;       // {ply, board, last} while looking at an earlier position
let pollTimer = null;
// While the engine works the page asks for its state, soon at first: a low level's move
// takes milliseconds, and a first ask after 300 ms made every such move (the installed
// page's first move among them) wait about 300 ms to be shown (docs/browser.md, "At a
// phone's speed"); a longer search is then asked about every 300 ms.
const TASK_POLL_MS = [50, 100, 200, 300];
let taskPolls = 0;       // polls since the engine's current task began
let ratingRanges = {};   // per game: the human model's {min, max} (levels by rating), or null

// The state of the game shown (the server's, docs/serve.md), null before the first; the
// Puzzles view turns its analysed mistakes into puzzles.
export function currentGame() {
  return state;
}

// --- Talking to the server -----------------------------------------------------------

async function act(method, path, body) {
  try {
    const s = await api(method, path, body);
    if (s && s.session) setState(s);
    return s;
  } catch (e) {
    if (e.status === 404 && session) {  // the session is gone: the kept game, or a new one
      await sessionLost();
      return null;
    }
    toast(e.message);
    return null;
  }
}

// The engine no longer knows this tab's game (a server restarted, or closed it after a
// long pause): the game kept in the browser comes back, else a new one starts.
async function sessionLost() {
  sessionStorage.removeItem("kz-session");
  session = null;
  if (!(await restoreGame())) await newGame();
}

function setState(s) {
  // An answer that left the engine before the one shown (a clock's poll asked before a set
  // up and answered after it, on a loaded machine) would put the older game back on the
  // board: a game's version only grows, so an older state of the same game is dropped.
  if (state && s.session === state.session && s.version < state.version) return;
  session = s.session;
  try {
    sessionStorage.setItem("kz-session", session);
  } catch (e) {
    // Storage turned off: a reload starts another game (the kept game is then said lost).
  }
  if (!s.engine.task && (!state || state.version !== s.version || state.session !== s.session))
    keepGame(s, () => state && state.session === s.session && state.version === s.version);
  const sown = state && state.session === s.session && s.moves.length > state.moves.length;
  // A game played on to its end here (not one loaded already over): the Your games view
  // keeps it (your_games.js).
  if (state && state.session === s.session && !gameOver(state) && gameOver(s) && s.moves.length > 0)
    document.dispatchEvent(new CustomEvent("kz-game-ended", { detail: s }));
  const hintArrived = s.hint && !(state && state.session === s.session && state.hint);
  state = s;
  render();
  if (hintArrived && !review) bringIntoView($("hint-box"));
  if (sown && !review) animateSowing(s, s.moves[s.moves.length - 1]);
  clearTimeout(pollTimer);
  if (!s.engine.task) taskPolls = 0;
  // While a clock runs the server's numbers are asked for every second (its flag decides).
  if (s.engine.task) pollTimer = setTimeout(poll, TASK_POLL_MS[Math.min(taskPolls++, TASK_POLL_MS.length - 1)]);
  else if (s.clock && s.clock.running >= 0) pollTimer = setTimeout(poll, 1000);
}

// Whether the game of state `s` has ended: decided on the board, or a flag fell.
function gameOver(s) {
  return s.board.decided || !!(s.clock && s.clock.flagged >= 0);
}

async function poll() {
  try {
    setState(await api("GET", `/api/state?session=${encodeURIComponent(session)}`));
  } catch (e) {
    if (e.status === 404) return sessionLost();
    toast(e.message);
    // The server is out of reach: ask again, so that the page is not left thinking.
    if (e.status === 0) pollTimer = setTimeout(poll, 3000);
  }
}

// --- The game kept in the browser (kept_game.js) ---------------------------------------

// Plays the kept game on again in a new session; false when there is none or it does not
// play on (then it is said and forgotten).
async function restoreGame() {
  const kept = keptGame();
  if (!kept) return false;
  try {
    const opened = await api("POST", "/api/new", { game: kept.game, human: "both" });
    session = opened.session;
    setState(await api("POST", "/api/load", { session, pgn: kept.pgn, game: kept.game,
                                              human: kept.human, level: kept.level }));
    return true;
  } catch (e) {
    forgetKeptGame();
    return false;
  }
}

// --- Settings --------------------------------------------------------------------------

// The game chosen in the Game menu, as the API names it ("togyz", "kalah:7,4,empty"); the
// Puzzles view follows it too.
export function gameName() {
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

// A game with moves that a new game, a set-up position or a loaded record replaces can be
// brought back once: the page offers it under the board until the next move.
function offerDiscarded() {
  const bar = $("discarded");
  if (!state || !state.moves.length || state.board.decided) {
    bar.hidden = true;
    return;
  }
  const kept = keptText();
  if (!kept) return;
  bar.replaceChildren();
  const text = document.createElement("span");
  text.textContent = trn("The game of {n} ply was put aside.", "The game of {n} plies was put aside.",
                         state.moves.length);
  const back = document.createElement("button");
  back.type = "button";
  back.id = "discarded-back";
  back.textContent = tr("Bring it back");
  back.addEventListener("click", async () => {
    bar.hidden = true;
    keepText(kept);
    review = null;
    forgetShownPits();
    await restoreGame();
  }, { once: true });
  bar.append(text, back);
  bar.hidden = false;
}

async function newGame(position) {
  offerDiscarded();
  review = null;
  forgetShownPits();
  const game = gameName();
  const body = { game, level: $("level").value, human: humanValue(game), clock: clockSetting() };
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
  const key = `${s.session}|${s.game}|${s.level}|${s.human}|${s.clock ? s.clock.control : ""}`;
  if (key === syncedSettings) return;
  syncedSettings = key;
  if (s.clock || !s.clock_note) showClockSetting(s.clock);
  // The Game menu's entries by the server's canonical game names; any other is a Kalah
  // of the size the state gives.
  const known = ["togyz", "kalah:6,4", "kalah:5,4,empty"];
  const values = ["togyz", "kalah", "bantumi"];
  const k = known.indexOf(s.game);
  if (k >= 0) $("game").value = values[k];
  else {
    $("game").value = "custom";
    $("pits").value = s.npits;
    $("seeds").value = s.seeds;
    $("empty-capture").checked = s.empty_capture;
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

function canPlay(s) {
  if (review || s.over || s.board.decided || s.engine.task === "move") return false;
  const h = humanSide(s);
  return h < 0 || h === s.board.to_move;
}

let shownPositionText = null;
// The position field follows the board, written only when the position shown changes: a
// running clock's poll redraws the page every second, and would undo a position the
// person is typing in to set up (its button would then set up the position on the board).
function showPositionText(text) {
  if (text === shownPositionText) return;
  shownPositionText = text;
  $("position").value = text;
}

function render() {
  const s = state;
  if (!s) return;
  syncSettings(s);
  const view = review ? review : { board: s.board, last: s.moves[s.moves.length - 1] };
  const reviewPly = review ? review.ply : null;
  drawBoard(s, view.board, view.last, !!review, !review && canPlay(s) ? play : null);
  drawStatus(s);
  drawClocks(s, () => { clearTimeout(pollTimer); poll(); });
  drawThinking(s);
  drawHint(s, !!review);
  drawMoves(s, reviewPly, showPly);
  drawAnalysis(s, reviewPly, showPly);
  showPositionText(view.board.position);
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
  $("hint").disabled = busy || s.over || s.board.decided || !!review;
  $("analyze").disabled = busy || s.moves.length === 0;
  $("stop").disabled = !(s.engine.task === "hint" || s.engine.task === "analysis");
}

// --- Actions ---------------------------------------------------------------------------

// One move at a time: a second tap before the first is answered is not a second move.
let moving = false;
async function play(pit) {
  if (moving) return;
  moving = true;
  clearHinted();
  $("discarded").hidden = true;
  try {
    await act("POST", "/api/move", { session, move: pit });
  } finally {
    moving = false;
  }
}

// Scrolls `el` onto the screen when it is off it (on a phone, results come below the
// board and the board is far above the chart and the move list).
function bringIntoView(el) {
  const r = el.getBoundingClientRect();
  if (r.top < 0 || r.bottom > window.innerHeight)
    el.scrollIntoView({ block: r.height > window.innerHeight ? "start" : "nearest" });
}

async function showPly(ply) {
  try {
    const r = await api("GET", `/api/board?session=${encodeURIComponent(session)}&ply=${ply}`);
    review = r.ply === state.moves.length ? null : r;
    render();
    if (review) bringIntoView($("board"));
  } catch (e) {
    toast(e.message);
  }
}

async function save() {
  try {
    // The analysis' comments in the record come in the page's language.
    const res = await request("GET", `/api/record?session=${encodeURIComponent(session)}`);
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

async function loadGame(text, index) {
  offerDiscarded();
  review = null;
  forgetShownPits();
  const s = await act("POST", "/api/load", { session, pgn: text, index });
  if (s) toast(trn("Loaded {n} ply. Both sides are yours; “Analyse the game” judges every move.",
                   "Loaded {n} plies. Both sides are yours; “Analyse the game” judges every move.", s.moves.length),
               5000, "info");
}

// Loads the record `text` (one game) into this tab's game and starts its analysis at the
// engine chosen for hints and analysis: the Your games view opens a game so.
export async function loadAndAnalyse(text) {
  await loadGame(text, 1);
  if (state) await act("POST", "/api/analyze", { session, level: $("hint-level").value });
}

// Wires the page's controls, sets the language and resumes this tab's game, or starts one.
export function startGame() {
  // The browser test (tools/web_test.py) reads the state the page shows as `kzState`.
  Object.defineProperty(window, "kzState", { get: () => state });
  $("setup").addEventListener("submit", (e) => {
    e.preventDefault();
    newGame();
  });
  startClockSetting();
  $("game").addEventListener("change", () => {
    $("custom-size").hidden = $("game").value !== "custom";
    fillRatingOptions();
  });
  $("position-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const position = $("position").value.trim();
    // The field shows the position on the board: set up unchanged, it would only start
    // the same position over as a new game.
    if (!position || (state && position === state.board.position && !review)) {
      toast(tr("Change the position in the field first: it shows the one on the board."));
      return;
    }
    newGame(position);
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
    chooseRecordGame(e.target.files[0], gameName(), loadGame);
    e.target.value = "";
  });
  startRecordChooser();
  answerForSession(() => session);
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
  // rating levels are offered for the games with a human model. The page's own engine
  // knows no runs: the site asks the server it came from, if it is `kumalak serve`.
  const infoReady = api("GET", "/api/info").then((info) => {
    if (!SITE.localEngine) $("run-link").hidden = !(info.runs > 0);
    ratingRanges = info.ratings || {};
    fillRatingOptions();
  }, () => {});
  if (SITE.localEngine)
    api("GET", "/api/runs").then((list) => ($("run-link").hidden = !(list.runs.length > 0)),
                                 () => {});

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
    if (session && (await sessionInOtherTab(session))) {
      // A duplicated tab (its sessionStorage is a copy): it gets a game of its own.
      sessionStorage.removeItem("kz-session");
      session = null;
    }
    if (session) {
      try {
        setState(await api("GET", `/api/state?session=${encodeURIComponent(session)}`));
        return;
      } catch (e) {
        sessionStorage.removeItem("kz-session");
        session = null;
      }
    }
    if (await restoreGame()) return;
    await newGame();
  })();
}

// The position the board shows (an earlier one while reviewing), as the rules pages
// write it; "" before the first state. The Openings view opens at it.
export function shownPosition() {
  const b = review ? review.board : state && state.board;
  return b && b.position ? b.position : "";
}
