// The Puzzles view of `kumalak serve` (docs/puzzles.md): the day's puzzle (the same for
// everyone on a date), a random one, the answer judged by the server (GET /api/puzzle,
// POST /api/puzzle/check) with the engine's reasons, the line played out, and the
// player's Glicko-2 puzzle rating kept in this browser (localStorage), never on the
// server; after an analysis, the player's accuracy and own mistakes and blunders as
// puzzles (POST /api/puzzle/try), judged but not rated. Self-contained but for the
// board's drawing (board.js): index.html only gives it a button and an empty section.
"use strict";

(() => {
  const el = (id) => document.getElementById(id);
  const kRatingKey = "kz-puzzle-rating";  // {game: {rating, deviation, volatility}}
  const kTriedKey = "kz-puzzle-tried";    // {game: {id: 1 solved | 0 failed}}
  const kPuzzleDeviation = 80;            // core/puzzle_rating.h kPuzzleDeviation
  // The puzzle file's source field (docs/puzzles.md) names the game in English words
  // ("FILE game N (DATE) ply P" or "self-play seed S game G ply P"); it is read back into
  // its numbers so that the reader sees it in the page's language. Any other text is
  // shown as it is.
  function puzzleSource(source) {
    let m = /^self-play seed (\d+) game (\d+) ply (\d+)$/.exec(source);
    if (m) return tr("self-play seed {seed} game {game} ply {ply}", { seed: m[1], game: m[2], ply: m[3] });
    m = /^(.+) game (\d+) \((.*)\) ply (\d+)$/.exec(source);
    if (m) return tr("{file} game {game} ({date}) ply {ply}", { file: m[1], game: m[2], date: m[3], ply: m[4] });
    return source;
  }
  // The puzzle's title, one whole sentence for each theme (as named in the puzzle file).
  function puzzleTitle(p) {
    const args = { id: p.id, rating: p.rating, source: puzzleSource(p.source) };
    switch (p.theme) {
      case "winning-line": return tr("Puzzle {id}: winning-line, rated {rating} (from {source}).", args);
      case "tuzdyk": return tr("Puzzle {id}: tuzdyk, rated {rating} (from {source}).", args);
      case "capture": return tr("Puzzle {id}: capture, rated {rating} (from {source}).", args);
      case "only-move": return tr("Puzzle {id}: only-move, rated {rating} (from {source}).", args);
    }
    return tr("Puzzle {id}: {theme}, rated {rating} (from {source}).", { ...args, theme: p.theme });
  }

  let current = null;   // the puzzle shown
  let answered = false;

  // --- Glicko-2 (the same steps as core/glicko2.cpp; Glickman's paper) ---------------
  function glicko2(player, opponentRating, opponentDeviation, score, tau = 0.5) {
    const scale = 173.7178;
    const mu = (player.rating - 1500) / scale, phi = player.deviation / scale;
    const sigma = player.volatility;
    const muJ = (opponentRating - 1500) / scale, phiJ = opponentDeviation / scale;
    const g = 1 / Math.sqrt(1 + (3 * phiJ * phiJ) / (Math.PI * Math.PI));
    const e = 1 / (1 + Math.exp(-g * (mu - muJ)));
    const v = 1 / (g * g * e * (1 - e));
    const delta = v * g * (score - e);
    const a = Math.log(sigma * sigma);
    const f = (x) => {
      const ex = Math.exp(x), d = phi * phi + v + ex;
      return (ex * (delta * delta - phi * phi - v - ex)) / (2 * d * d) - (x - a) / (tau * tau);
    };
    let A = a, B;
    if (delta * delta > phi * phi + v) {
      B = Math.log(delta * delta - phi * phi - v);
    } else {
      let k = 1;
      while (f(a - k * tau) < 0) ++k;
      B = a - k * tau;
    }
    let fA = f(A), fB = f(B);
    for (let i = 0; Math.abs(B - A) > 1e-6 && i < 200; ++i) {
      const C = A + ((A - B) * fA) / (fB - fA), fC = f(C);
      if (fC * fB <= 0) { A = B; fA = fB; } else { fA /= 2; }
      B = C; fB = fC;
    }
    const sigmaNew = Math.exp(A / 2);
    const phiStar = Math.sqrt(phi * phi + sigmaNew * sigmaNew);
    const phiNew = 1 / Math.sqrt(1 / (phiStar * phiStar) + 1 / v);
    return {
      rating: 1500 + scale * (mu + phiNew * phiNew * g * (score - e)),
      deviation: Math.min(350, scale * phiNew),
      volatility: sigmaNew,
    };
  }
  window.kzGlicko2 = glicko2;  // for the browser test

  function load(key) {
    try { return JSON.parse(localStorage.getItem(key) || "{}") || {}; } catch (e) { return {}; }
  }
  function myRating(game) {
    return load(kRatingKey)[game] || { rating: 1500, deviation: 350, volatility: 0.06 };
  }
  function showRating(game) {
    el("puzzle-rating").textContent = tr("Your puzzle rating: {rating} (give or take {deviation}).", {
      rating: Math.round(myRating(game).rating), deviation: Math.round(2 * myRating(game).deviation) });
  }

  // --- Accuracy (mcts/accuracy.h, the same formula) -----------------------------------
  function moveAccuracy(drop) {
    const a = 103.1668 * Math.exp(-0.04354 * 100 * Math.max(0, drop)) - 3.1669;
    return Math.min(100, Math.max(0, a));
  }
  function gameAccuracy(drops) {
    if (!drops.length) return null;
    const acc = drops.map(moveAccuracy);
    const mean = acc.reduce((x, y) => x + y, 0) / acc.length;
    const harmonic = acc.length / acc.reduce((x, y) => x + 1 / Math.max(y, 1), 0);
    return (mean + harmonic) / 2;
  }
  window.kzGameAccuracy = gameAccuracy;  // for the browser test

  // --- Learn from your mistakes: the analysed game of the page (app.js's `state`) ------
  function showMistakes() {
    const box = el("puzzle-mistakes-list");
    box.replaceChildren();
    // app.js's top-level `state` and `session` are shared by the page's scripts.
    const s = typeof state !== "undefined" ? state : null;
    const a = s && s.analysis;
    if (!a || !a.complete) {
      box.textContent = tr("Analyse a game first: your mistakes become puzzles here.");
      return;
    }
    const human = s.human === "both" ? -1 : s.sides.indexOf(s.human);
    const p = { togyz: s.togyz, npits: s.npits, game: s.game };
    for (const mover of [0, 1]) {
      if (human >= 0 && mover !== human) continue;
      const drops = a.plies.filter((x) => x.judged && x.mover === mover).map((x) => x.drop);
      const accuracy = gameAccuracy(drops);
      if (accuracy === null) continue;
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
      r = await call("GET", `/api/board?session=${encodeURIComponent(s.session)}&ply=${x.ply - 1}`);
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
  // The server says the reasons and its errors in the language of the page's menu
  // (i18n.js's i18nState).
  async function call(method, path, body) {
    const language = { "Accept-Language": i18nState.lang };
    const r = await fetch(path, method === "GET" ? { headers: language } : {
      method, headers: { ...language, "Content-Type": "application/json" }, body: JSON.stringify(body) });
    const j = await r.json();
    if (!r.ok) throw new Error(j.error || String(r.status));
    return j;
  }
  async function show(query) {
    let p;
    try {
      p = await call("GET", `/api/puzzle?game=${encodeURIComponent(puzzleGame())}${query}`);
    } catch (e) {
      el("puzzle-result").textContent = tr("No puzzle: {error}", { error: e.message });
      return;
    }
    current = p;
    answered = false;
    el("puzzle-title").textContent = puzzleTitle(p);
    el("puzzle-task").textContent = tr("{side} to move: find the best move.", { side: side(p, p.board.to_move) });
    el("puzzle-result").textContent = "";
    drawBoard(p, p.board, true);
    showRating(p.game);
  }
  async function answer(pit) {
    if (!current || answered) return;
    answered = true;
    const p = current;
    let r;
    try {
      r = p.mistake
        ? await call("POST", "/api/puzzle/try", { game: p.game, position: p.position, best: p.best, move: pit })
        : await call("POST", "/api/puzzle/check", { game: p.game, id: p.id, move: pit });
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
    const tried = load(kTriedKey);
    tried[p.game] = tried[p.game] || {};
    if (p.id in tried[p.game]) {
      lines.push(tr("You have tried this puzzle before, so your puzzle rating stays {rating}.", {
        rating: Math.round(myRating(p.game).rating) }));
    } else {
      const ratings = load(kRatingKey);
      const before = myRating(p.game);
      ratings[p.game] = glicko2(before, p.rating, kPuzzleDeviation, r.correct ? 1 : 0);
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

  document.addEventListener("DOMContentLoaded", () => {
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
  });
})();
