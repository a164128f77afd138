// The words of the game view (game_view.js, analysis_view.js) for what the server's
// state names (docs/serve.md): the sides, the levels, what a move did and the marks of
// the analysis, in the reader's language (i18n.js), each a whole sentence.
import { tr, trn } from "./i18n.js";

// Side `p` of the state `s` by the server's word for it (white/black, south/north).
export function sideTitle(s, p) {
  const side = s.sides[p];
  return side === "white" ? tr("White") : side === "black" ? tr("Black")
    : side === "south" ? tr("South") : side === "north" ? tr("North") : side;
}

// The level names the server uses, as the menus show them.
export function levelTitle(level) {
  if (/^\d+$/.test(level)) return tr("like a player rated {rating}", { rating: level });
  return { beginner: tr("beginner"), easy: tr("easy"), medium: tr("medium"), hard: tr("hard"),
           expert: tr("expert") }[level] || level;
}

// The engine the server names ("mcts-hard", "alphabeta-medium", "human-1300") as a player
// knows it: its level.
export function engineTitle(name) {
  const m = /^human-(\d+)$/.exec(name || "") || /-(beginner|easy|medium|hard|expert)$/.exec(name || "");
  return m ? levelTitle(m[1]) : name;
}

// A share 0..1 as a whole percentage, and a margin with its sign and one decimal.
export const pct = (x) => `${Math.round(100 * x)}%`;
export const signed = (x) => (x >= 0 ? "+" : "") + x.toFixed(1);

// One whole sentence for each thing a move can do (no pieces glued in any language).
export function describeMove(s, mv) {
  const p = { side: sideTitle(s, mv.mover), move: mv.notation, n: mv.captured };
  if (mv.tuzdyk) return mv.extra_turn ? tr("{side} played {move}, making a tuzdyk, and moves again.", p)
    : tr("{side} played {move}, making a tuzdyk.", p);
  if (mv.captured) return mv.extra_turn
    ? trn("{side} played {move}, capturing {n}, and moves again.", "{side} played {move}, capturing {n}, and moves again.", mv.captured, p)
    : trn("{side} played {move}, capturing {n}.", "{side} played {move}, capturing {n}.", mv.captured, p);
  return mv.extra_turn ? tr("{side} played {move}, and moves again.", p) : tr("{side} played {move}.", p);
}

// The analysis' marks of a move: the symbol after its notation and the word.
export const markSymbol = { inaccuracy: "?!", mistake: "?", blunder: "??" };
export const markTitle = (mark) => ({ inaccuracy: tr("inaccuracy"), mistake: tr("mistake"), blunder: tr("blunder") }[mark] || mark);
