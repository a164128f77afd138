// The game kept in the browser (localStorage), so that it comes back when the engine no
// longer knows it: a reload of the page whose engine runs in the page, a browser restart,
// a server restarted. What is kept is the game's record (with the analysis when there is
// one) and who plays what, once the engine is done with it.
import { request, toast } from "./api.js";
import { tr } from "./i18n.js";

const keptGameKey = "kz-game";
let keepFailedSaid = false;
let keeping = Promise.resolve();

// Keeps the game of the state `s`, one keep at a time and only while `isCurrent()` says
// `s` is still the game shown, so that an older state's keep never lands after a newer
// one's.
export function keepGame(s, isCurrent) {
  keeping = keeping.then(() => keepNow(s, isCurrent));
}

async function keepNow(s, isCurrent) {
  if (!isCurrent()) return;
  try {
    const res = await request("GET", `/api/record?session=${encodeURIComponent(s.session)}`);
    if (!res.ok) return;
    const pgn = await res.text();
    if (!isCurrent()) return;
    localStorage.setItem(keptGameKey, JSON.stringify({ game: s.game, level: s.level, human: s.human, pgn }));
  } catch (e) {
    // Storage full or turned off: say so once; the game goes on unkept.
    if (!keepFailedSaid) toast(tr("This browser does not let the page keep your game (its storage is full or turned off); it will be lost when the page closes."));
    keepFailedSaid = true;
  }
}

// The kept game as stored (text, to be put back with keepText), or null.
export function keptText() {
  try {
    return localStorage.getItem(keptGameKey);
  } catch (e) {
    return null;
  }
}

export function keepText(text) {
  try {
    localStorage.setItem(keptGameKey, text);
  } catch (e) {
    // storage full or turned off: the game is not kept, and the restore finds none
  }
}

// The kept game {game, level, human, pgn}; null when there is none. One that does not
// read (damaged, or from an older version) is said, forgotten, and null.
export function keptGame() {
  const text = keptText();
  if (!text) return null;
  try {
    const kept = JSON.parse(text);
    if (kept && typeof kept.pgn === "string" && typeof kept.game === "string") return kept;
  } catch (e) {
    // said below
  }
  forgetKeptGame();
  return null;
}

// Forgets the kept game after it did not play on, and says so.
export function forgetKeptGame() {
  try {
    localStorage.removeItem(keptGameKey);
  } catch (e) {
    // storage turned off: nothing was kept
  }
  toast(tr("The game kept in this browser could not be read and was discarded."));
}
