// The views that take the game's place while open (the Rules guide, Openings, Your games):
// each hides the game (#play) and the side columns, and gives each back as it was when it
// closes, so that a view never shows what another had hidden.

// Hides the game's views; returns what uncoverGame needs to give them back.
export function coverGame() {
  const covered = [document.getElementById("play"), ...document.querySelectorAll("main > aside")]
    .filter(Boolean).map((view) => ({ view, hidden: view.hidden }));
  for (const c of covered) c.view.hidden = true;
  return covered;
}

// Gives back the views coverGame hid (null: nothing), each hidden or shown as it was.
export function uncoverGame(covered) {
  for (const c of covered || []) c.view.hidden = c.hidden;
}
