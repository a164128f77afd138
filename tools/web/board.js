// The board as the page draws it, one drawing for the game (game_view.js) and the puzzles
// (puzzles.js): Togyz Kumalak's two rows with the kazans between them, Kalah's rows with
// each player's store on their right (where each part sits is style.css's, .board-grid
// and .board-grid.kalah). The holes are buttons carrying data-player and data-pit (the
// player 0/1 and the hole 1..N), the stores data-store; the words are the reader's
// language (i18n.js).
import { tr } from "./i18n.js";

// The side's name in the reader's language: White/Black (Togyz), South/North (Kalah).
export function boardSideName(togyz, player) {
  return togyz ? (player === 0 ? tr("White") : tr("Black")) : (player === 0 ? tr("South") : tr("North"));
}

// The board `b` (the server's board JSON: pits, stores, tuzdyk, to_move, legal, decided)
// as a new .board-grid element. `v`:
//   togyz, npits    the game;
//   bottom          the player whose row is at the bottom (the other's is at the top);
//   side(p)         the name of player p (default boardSideName);
//   storeLabel(p)   the words over p's kazan or store (default side(p));
//   markToMove      underline the label of the side to move (unless the game is decided);
//   play(pit)       called with the hole a click plays; absent: nothing can be played;
//                   only the side to move's legal holes are playable;
//   last            the last move {mover, pit, landing: [player|-1, hole]}: marked;
//   changed(p, i)   whether hole i (0-based) of p changed since last drawn: it flashes;
//   hinted(p, i)    whether hole i of p is the one a hint points at: outlined.
export function boardGrid(b, v) {
  const m = v.npits;
  const bottom = v.bottom, top = bottom ^ 1;
  const side = v.side || ((p) => boardSideName(v.togyz, p));
  const grid = document.createElement("div");
  grid.className = "board-grid";

  const pit = (player, i) => {
    const el = document.createElement("button");
    el.type = "button";
    el.className = "pit";
    el.dataset.player = player;
    el.dataset.pit = i + 1;
    const isTuzdyk = v.togyz && b.tuzdyk[player ^ 1] === i + 1;
    el.textContent = isTuzdyk ? "X" : b.pits[player][i];
    const at = { side: side(player), hole: i + 1, n: b.pits[player][i] };
    let title = v.togyz ? tr("{side}'s hole {hole}: {n}", at) : tr("{side}'s pit {hole}: {n}", at);
    if (isTuzdyk) {
      el.classList.add("tuzdyk");
      el.dataset.tuzdyk = tr("tuzdyk");
      title = tr("{side}'s hole {hole} is {owner}'s tuzdyk", { ...at, owner: side(player ^ 1) });
    }
    const last = v.last;
    if (last && last.mover === player && last.pit === i + 1) el.classList.add("from");
    else if (last && last.landing[0] === player && last.landing[1] === i + 1) el.classList.add("land");
    if (v.changed && v.changed(player, i)) el.classList.add("changed");
    if (v.hinted && v.hinted(player, i)) el.classList.add("hinted");
    const legal = player === b.to_move && b.legal.includes(i + 1);
    if (v.play && legal) {
      el.classList.add("playable");
      el.addEventListener("click", () => v.play(i + 1));
    } else {
      el.disabled = true;
    }
    el.title = title;
    return el;
  };
  const nums = (reversed) => {
    const row = [];
    for (let k = 0; k < m; ++k) {
      const d = document.createElement("div");
      d.className = "nums";
      d.textContent = reversed ? m - k : k + 1;
      row.push(d);
    }
    return row;
  };
  const store = (player) => {
    const d = document.createElement("div");
    d.className = "store";
    d.dataset.store = player;
    const small = document.createElement("small");
    small.textContent = v.storeLabel ? v.storeLabel(player) : side(player);
    if (v.markToMove && b.to_move === player && !b.decided) small.className = "to-move";
    d.append(small, document.createTextNode(String(b.stores[player])));
    if (v.last && v.last.landing[0] === -1 && v.last.mover === player) d.classList.add("land");
    d.title = v.togyz ? tr("{side}'s kazan", { side: side(player) }) : tr("{side}'s store", { side: side(player) });
    return d;
  };

  if (v.togyz) {
    grid.style.gridTemplateColumns = `repeat(${m}, auto)`;
    nums(true).forEach((e) => grid.append(e));
    for (let k = 0; k < m; ++k) grid.append(pit(top, m - 1 - k));
    const kaz = document.createElement("div");
    kaz.className = "kazans";
    kaz.style.gridColumn = `1 / span ${m}`;
    kaz.append(store(top), store(bottom));
    grid.append(kaz);
    for (let k = 0; k < m; ++k) grid.append(pit(bottom, k));
    nums(false).forEach((e) => grid.append(e));
  } else {
    // Each player's store is on their right: the top player's on the left of the board.
    // On a phone a board of 7-9 pits has no room for the stores beside the rows, so
    // style.css puts them between the rows (.many-pits).
    grid.classList.add("kalah");
    if (m >= 7) grid.classList.add("many-pits");
    grid.style.setProperty("--pits", m);
    const numsRow = (reversed, where) => {
      const corner = () => Object.assign(document.createElement("div"), { className: `nums corner ${where}` });
      grid.append(corner());
      nums(reversed).forEach((e) => { e.classList.add(where); grid.append(e); });
      grid.append(corner());
    };
    numsRow(true, "top");
    const left = store(top);
    left.classList.add("left");
    grid.append(left);
    for (let k = 0; k < m; ++k) {
      const p = pit(top, m - 1 - k);
      p.classList.add("top");
      grid.append(p);
    }
    const right = store(bottom);
    right.classList.add("right");
    grid.append(right);
    for (let k = 0; k < m; ++k) {
      const p = pit(bottom, k);
      p.classList.add("bottom");
      grid.append(p);
    }
    numsRow(false, "bottom");
  }
  return grid;
}
