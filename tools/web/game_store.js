// The player's own games kept in the browser (IndexedDB): every game played to its end in
// the page and every game imported from a record file (your_games.js), each with its own
// record text, its headers and what the background rating pass found in it. A game's key
// is a hash of its record text, so that a game imported twice is kept once. Where the
// browser keeps nothing (storage turned off, full, a private window that refuses
// IndexedDB) the games stay in this page's memory until it closes, and the player is told
// once, in their words; nothing already kept is lost by a write that fails.
import { toast } from "./api.js";
import { tr } from "./i18n.js";

const dbName = "kz-games";
const gamesStore = "games";
const metaStore = "meta";

let opening = null;        // the promise of the database (null: not opened yet)
let memory = null;         // Map id -> game while the browser keeps nothing
const memoryMeta = new Map();
let failureSaid = false;

// The key of a game: a 64-bit FNV-1a hash of its record text, in hex (two 32-bit halves
// with different offsets), fast enough for a thousand records at once.
export function gameKey(text) {
  let a = 0x811c9dc5, b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; ++i) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
}

// Says once that the games are not kept, and keeps them in memory from now on.
function storageFailed() {
  if (!memory) memory = new Map();
  if (!failureSaid)
    toast(tr("This browser does not let the page keep your games (its storage is full or turned off); they stay until the page closes."), 8000);
  failureSaid = true;
}

function openDb() {
  if (!opening) {
    opening = new Promise((resolve) => {
      let req;
      try {
        req = indexedDB.open(dbName, 1);
      } catch (e) {
        resolve(null);
        return;
      }
      req.onupgradeneeded = () => {
        const db = req.result;
        if (!db.objectStoreNames.contains(gamesStore)) db.createObjectStore(gamesStore, { keyPath: "id" });
        if (!db.objectStoreNames.contains(metaStore)) db.createObjectStore(metaStore);
      };
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => resolve(null);
      req.onblocked = () => resolve(null);
    }).then((db) => {
      if (!db) storageFailed();
      return db;
    });
  }
  return opening;
}

// Runs `work(store...)` in one transaction over `stores` and resolves with what it
// returns once the transaction is complete; rejects when it fails (nothing of it is kept).
function transaction(db, stores, mode, work) {
  return new Promise((resolve, reject) => {
    let result;
    let tx;
    try {
      tx = db.transaction(stores, mode);
      result = work(...stores.map((s) => tx.objectStore(s)));
    } catch (e) {
      reject(e);
      return;
    }
    tx.oncomplete = () => resolve(result);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error || new Error("aborted"));
  });
}

function requestResult(req) {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

// Every game kept, oldest first (the order they were added).
export async function allGames() {
  const db = await openDb();
  if (db && !memory) {
    try {
      const games = await transaction(db, [gamesStore], "readonly", (s) => requestResult(s.getAll()));
      return (await games).sort((x, y) => x.added - y.added || x.order - y.order);
    } catch (e) {
      storageFailed();
    }
  }
  return [...memory.values()];
}

// Adds `games` (each with "text"; "id" is set from it) in one go; a game already kept is
// left as it is. Resolves with {added, duplicates}.
export async function addGames(games) {
  const now = Date.now();
  games.forEach((g, i) => {
    g.id = gameKey(g.text);
    g.added = now;
    g.order = i;
  });
  const db = await openDb();
  if (db && !memory) {
    try {
      return await transaction(db, [gamesStore], "readwrite", (store) => {
        const counts = { added: 0, duplicates: 0 };
        for (const g of games) {
          const req = store.add(g);
          req.onsuccess = () => ++counts.added;
          // The key is there already: the same game, imported before. Not an error.
          req.onerror = (e) => {
            if (req.error && req.error.name === "ConstraintError") {
              ++counts.duplicates;
              e.preventDefault();
              e.stopPropagation();
            }
          };
        }
        return counts;
      });
    } catch (e) {
      // Full or refused: the whole import is in memory instead, with what was kept.
      const kept = await allGames();
      storageFailed();
      for (const g of kept) memory.set(g.id, g);
    }
  }
  const counts = { added: 0, duplicates: 0 };
  for (const g of games) {
    if (memory.has(g.id)) ++counts.duplicates;
    else {
      memory.set(g.id, g);
      ++counts.added;
    }
  }
  return counts;
}

// Writes `game` back (the rating pass's findings) if it is still kept: a game deleted
// while the pass worked on it stays deleted.
export async function putGame(game) {
  const db = await openDb();
  if (db && !memory) {
    try {
      await transaction(db, [gamesStore], "readwrite", (s) => {
        const req = s.get(game.id);
        req.onsuccess = () => { if (req.result) s.put(game); };
      });
      return;
    } catch (e) {
      const kept = await allGames();
      storageFailed();
      for (const g of kept) memory.set(g.id, g);
    }
  }
  if (memory.has(game.id)) memory.set(game.id, game);
}

// Forgets the games of `ids`.
export async function deleteGames(ids) {
  const db = await openDb();
  if (db && !memory) {
    try {
      await transaction(db, [gamesStore], "readwrite", (s) => ids.forEach((id) => s.delete(id)));
      return;
    } catch (e) {
      const kept = await allGames();
      storageFailed();
      for (const g of kept) memory.set(g.id, g);
    }
  }
  for (const id of ids) memory.delete(id);
}

// A value kept beside the games (the player's name, the last rating), or undefined.
export async function getMeta(key) {
  const db = await openDb();
  if (db && !memory) {
    try {
      return await (await transaction(db, [metaStore], "readonly", (s) => requestResult(s.get(key))));
    } catch (e) {
      storageFailed();
    }
  }
  return memoryMeta.get(key);
}

export async function setMeta(key, value) {
  memoryMeta.set(key, value);
  const db = await openDb();
  if (db && !memory) {
    try {
      await transaction(db, [metaStore], "readwrite", (s) => s.put(value, key));
    } catch (e) {
      storageFailed();
    }
  }
}
