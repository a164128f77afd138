// A record file chosen with "Load game record": read and checked in the page (its size,
// that it is text), its games listed by the engine (POST /api/record/games), and, for a
// file of many games (a player's PlayOK export), a chooser of who played, the result,
// the date and the length; a game that does not replay says why and cannot be picked.
import { api, toast } from "./api.js";
import { tr, trn } from "./i18n.js";

const $ = (id) => document.getElementById(id);

// The largest record file read: the engine's request limit (tools/serve/api_router.h),
// room for a player's PlayOK export of about a thousand games.
const maxRecordBytes = 4 * 1024 * 1024;

// Reads `file` and calls `load(text, index)` with the game to load: at once for a file of
// one game, after the player's pick for a file of many. `game` is the game chosen in the
// page, for records without a Variant tag.
export async function chooseRecordGame(file, game, load) {
  if (!file) return;
  if (file.size > maxRecordBytes) {
    toast(tr("That file is too large for a game record."));
    return;
  }
  const text = await file.text();
  // A picture or any other file that is not text would only be echoed back in the error.
  if (!text.trim() || text.includes("\u0000") || text.includes("\uFFFD")) {
    toast(tr("That file is not a game record: it holds no text."));
    return;
  }
  let games;
  try {
    games = (await api("POST", "/api/record/games", { pgn: text, game })).games;
  } catch (e) {
    toast(e.message);
    return;
  }
  if (!games.length) toast(tr("the record holds no game"));
  else if (games.length === 1) await load(text, 1);
  else showChooser(text, games, load);
}

function showChooser(text, games, load) {
  const dialog = $("record-chooser");
  $("record-chooser-title").textContent = trn("This file holds {n} game. Which one?",
                                              "This file holds {n} games. Which one?", games.length);
  const list = $("record-chooser-list");
  list.replaceChildren();
  const player = (name, elo) => (name || "?") + (elo && elo !== "?" ? ` (${elo})` : "");
  for (const g of games) {
    const li = document.createElement("li");
    const pick = document.createElement("button");
    pick.type = "button";
    const who = { index: g.index, white: player(g.white, g.white_elo), black: player(g.black, g.black_elo),
                  result: g.result || "*", date: g.date || "?" };
    pick.textContent = g.error
      ? tr("{index}. {white} – {black}, {result}, {date}: does not replay ({error})", { ...who, error: g.error })
      : trn("{index}. {white} – {black}, {result}, {date}: {n} ply",
            "{index}. {white} – {black}, {result}, {date}: {n} plies", g.plies, who);
    pick.disabled = !!g.error;
    pick.addEventListener("click", async () => {
      dialog.close();
      await load(text, g.index);
    });
    li.append(pick);
    list.append(li);
  }
  dialog.showModal();
}

// Wires the chooser's Cancel.
export function startRecordChooser() {
  $("record-chooser-cancel").addEventListener("click", () => $("record-chooser").close());
}
