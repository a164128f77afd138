// The board page of `kumalak serve` (index.html), its one module script: the game
// (game.js, drawn by game_view.js and analysis_view.js), the Puzzles view (puzzles.js),
// the Rules guide (guide.js), the Openings view (openings.js) and the Your games view
// (your_games.js), all in the reader's
// language (i18n.js); all but the guide talk to the JSON API (api.js, docs/serve.md). Module scripts run once the page is
// parsed, so the elements are there. In the static site (site.js) the service worker
// comes first (offline.js): the engine runs in this page and may need the page reloaded
// under it once.
import { startGame } from "./game.js";
import { startGuide } from "./guide.js";
import { startOpenings } from "./openings.js";
import { startPuzzles } from "./puzzles.js";
import { prepareSite } from "./offline.js";
import { startYourGames } from "./your_games.js";

await prepareSite();
startGame();
startPuzzles();
startGuide();
startOpenings();
startYourGames();
