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

// A view shown in the game's place and named `name`: the section #name, its header button
// #name-open (aria-pressed says whether the view is shown) and the body's class
// name-shown for the styles. show() and hide() do nothing when it already is so.
export function viewInPlaceOfGame(name) {
  let covered = null;
  const section = () => document.getElementById(name);
  const button = () => document.getElementById(name + "-open");
  const view = {
    isOpen: () => !section().hidden,
    show() {
      if (view.isOpen()) return;
      covered = coverGame();
      section().hidden = false;
      document.body.classList.add(name + "-shown");
      button().setAttribute("aria-pressed", "true");
    },
    hide() {
      if (!view.isOpen()) return;
      section().hidden = true;
      document.body.classList.remove(name + "-shown");
      button().setAttribute("aria-pressed", "false");
      uncoverGame(covered);
      covered = null;
    },
  };
  return view;
}
