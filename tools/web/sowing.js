// The sowing light of the game view: after a move the board already shows the new
// position; a light then runs from the hole the move started in, hole by hole round the
// board, to where its last stone landed, so that the eye can follow the sowing. A tap on
// the board skips it (stopSowing); it is off when the reader asks for reduced motion.
let sowTimers = [];
const reducedMotion = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)");

// Ends the light now.
export function stopSowing() {
  sowTimers.forEach(clearTimeout);
  sowTimers = [];
  for (const el of document.querySelectorAll("#board .sowing")) el.classList.remove("sowing");
}

// The places a move's stones pass through, in order: the mover's holes from the one it
// started in, (Kalah: the mover's store), the opponent's holes, round again; CSS
// selectors of a board.js board's holes and stores. The Rules guide (guide.js) sows its
// stones along it too.
export function sowingPath(s, mv) {
  const m = s.npits, me = mv.mover, them = me ^ 1;
  const ring = [];
  for (let k = 1; k <= m; ++k) ring.push(`.pit[data-player="${me}"][data-pit="${k}"]`);
  if (!s.togyz) ring.push(`.store[data-store="${me}"]`);
  for (let k = 1; k <= m; ++k) ring.push(`.pit[data-player="${them}"][data-pit="${k}"]`);
  const [lp, lk] = mv.landing;
  const target = lp === -1 ? m : lp === me ? lk - 1 : (s.togyz ? m : m + 1) + lk - 1;
  const path = [];
  for (let i = mv.pit - 1, n = 0; n <= ring.length; i = (i + 1) % ring.length, ++n) {
    path.push(ring[i]);
    if (i === target && n > 0) break;
  }
  return path;
}

// Runs the light along move `mv` (the state's move: mover, pit, landing) of the game `s`
// over the board drawn in #board.
export function animateSowing(s, mv) {
  stopSowing();
  if (!mv || !mv.landing || (reducedMotion && reducedMotion.matches)) return;
  const path = sowingPath(s, mv);
  const step = Math.min(90, 1400 / path.length);
  path.forEach((sel, n) => {
    sowTimers.push(setTimeout(() => {
      for (const el of document.querySelectorAll("#board .sowing")) el.classList.remove("sowing");
      const el = document.querySelector("#board " + sel);
      if (el) el.classList.add("sowing");
    }, n * step));
  });
  sowTimers.push(setTimeout(stopSowing, path.length * step + 120));
}
