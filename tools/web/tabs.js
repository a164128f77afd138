// Tabs tell each other which game they show, so that a duplicated tab, which starts with
// a copy of its original's session id (sessionStorage is copied), does not play on, and
// show a stale copy of, the same game.
const tabs = "BroadcastChannel" in self ? new BroadcastChannel("kz-sessions") : null;

// Answers the other tabs' questions about `currentSession()`, this tab's game.
export function answerForSession(currentSession) {
  if (!tabs) return;
  tabs.onmessage = (e) => {
    const mine = currentSession();
    if (e.data && e.data.ask && e.data.ask === mine) tabs.postMessage({ have: mine });
  };
}

// Resolves whether another tab answers for the session `id` within a moment.
export function sessionInOtherTab(id) {
  if (!tabs) return Promise.resolve(false);
  return new Promise((resolve) => {
    // A channel hears every other channel of its name, never its own messages.
    const onAnswer = (e) => { if (e.data && e.data.have === id) finish(true); };
    const finish = (answer) => {
      tabs.removeEventListener("message", onAnswer);
      clearTimeout(timer);
      resolve(answer);
    };
    tabs.addEventListener("message", onAnswer);
    const timer = setTimeout(() => finish(false), 250);
    tabs.postMessage({ ask: id });
  });
}
