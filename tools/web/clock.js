// The game's clock on the page: two faces by the board, one per side, the running one
// highlighted, ticking down between polls from the server's numbers (the server's are
// the truth: each state sets the faces again; docs/serve.md's `clock`). The faces show
// mm:ss, and tenths under ten seconds; a fallen flag is marked and the state's reason
// says the result. The settings form's Clock menu (none, presets, or minutes + seconds
// of increment) gives POST /api/new its `clock`.
import { sideTitle } from "./game_words.js";
import { keepNumbersWithEndings, tr } from "./i18n.js";

const $ = (id) => document.getElementById(id);
let shown = null;      // {clock, at}: the last state's clock and when it came (performance.now())
let ticker = null;
let onRunOut = null;   // called once when the running face reaches 0 (the page asks the server)
let runOutSaid = false;

// The time control the Clock menu names, as POST /api/new reads it ("" for none).
export function clockSetting() {
  const v = $("clock").value;
  if (v !== "custom") return v;
  const minutes = Number($("clock-minutes").value);
  const seconds = Number($("clock-increment").value) || 0;
  if (!(minutes > 0)) return "";
  return `${minutes}+${Math.max(0, seconds)}`;
}

// Shows a game's control in the Clock menu (a game resumed, the settings of another tab).
export function showClockSetting(clock) {
  const menu = $("clock");
  if (!clock) {
    menu.value = "";
  } else if ([...menu.options].some((o) => o.value === clock.control)) {
    menu.value = clock.control;
  } else {
    menu.value = "custom";
    $("clock-minutes").value = String(clock.base_ms / 60000);
    $("clock-increment").value = String(clock.increment_ms / 1000);
  }
  $("clock-custom").hidden = menu.value !== "custom";
}

// mm:ss, with tenths under ten seconds (h:mm:ss from an hour on); never below 0.
export function formatClock(ms) {
  const left = Math.max(0, ms);
  if (left < 10000) {
    const tenths = Math.floor(left / 100);
    return `0:0${Math.floor(tenths / 10)}.${tenths % 10}`;
  }
  const total = Math.floor(left / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

// `side`'s time now: the server's number less what has passed since it came, for the
// running side.
function leftNow(side) {
  const c = shown.clock;
  const ms = c.remaining_ms[side];
  return c.running === side ? ms - (performance.now() - shown.at) : ms;
}

function drawFaces(s) {
  const box = $("clocks");
  const c = shown && shown.clock;
  if (!c) {
    box.replaceChildren();
    if (s.clock_note) {
      const note = document.createElement("p");
      note.className = "muted small clock-note";
      note.textContent = keepNumbersWithEndings(s.clock_note);
      box.append(note);
    }
    box.hidden = !s.clock_note;
    return;
  }
  box.hidden = false;
  if (box.querySelectorAll(".clock-face").length !== 2) {
    box.replaceChildren();
    for (const side of [0, 1]) {
      const face = document.createElement("div");
      face.className = "clock-face";
      face.dataset.side = String(side);
      const name = document.createElement("span");
      name.className = "clock-side";
      const time = document.createElement("span");
      time.className = "clock-time";
      face.append(name, time);
      box.append(face);
    }
  }
  for (const face of box.querySelectorAll(".clock-face")) {
    const side = Number(face.dataset.side);
    face.querySelector(".clock-side").textContent = sideTitle(s, side);
    face.querySelector(".clock-time").textContent = formatClock(leftNow(side));
    face.classList.toggle("running", c.running === side);
    face.classList.toggle("flagged", c.flagged === side);
    face.setAttribute("aria-label", tr("{player}, {time} left", { player: sideTitle(s, side),
                                                                   time: formatClock(leftNow(side)) }));
  }
}

// Draws the clock of state `s` and ticks it until the next state; `runOut` is called
// once when the running clock reaches 0 on the page, so that the server (which decides
// the flag) is asked at once.
export function drawClocks(s, runOut) {
  shown = s.clock ? { clock: s.clock, at: performance.now() } : null;
  onRunOut = runOut;
  runOutSaid = false;
  drawFaces(s);
  clearInterval(ticker);
  ticker = null;
  if (!shown || shown.clock.running < 0) return;
  ticker = setInterval(() => {
    drawFaces(s);
    if (!runOutSaid && leftNow(shown.clock.running) < 0) {
      runOutSaid = true;
      if (onRunOut) onRunOut();
    }
  }, 100);
}

// Wires the Clock menu's custom fields.
export function startClockSetting() {
  $("clock").addEventListener("change", () => {
    $("clock-custom").hidden = $("clock").value !== "custom";
  });
}
