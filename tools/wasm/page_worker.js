// The page's engine in a Web Worker (docs/browser.md): `kumalak serve`'s JSON API
// (docs/serve.md) answered by the WebAssembly build itself (tools/wasm/page_api.cpp), so
// the page plays, hints, analyses and judges puzzles with no server. The page
// (tools/web/api.js) posts {id, method, path, params, body, lang} and receives
// {id, status, type, body, headers}; before the engine is ready it receives
// {ready: true, version, threads} once, or {failed: reason}. Calls posted before then are
// kept and answered in order.
//
// Which engine: a cross-origin isolated page may share memory between workers, so it gets
// kumalak-web.js, whose searches run on threads of their own; any other page gets
// kumalak-web-1t.js, without threads. That one thinks on this worker's own thread: after
// answering a call the worker runs the queued engine jobs one by one (kz_page_work). A
// job's search pauses every few tens of milliseconds (tools/wasm/worker_yield.h): the
// worker answers the calls that came meanwhile, as the threaded engine answers them while
// its threads think (a stop raises the flag the search polls when it goes on, and the job
// ends with its best move so far), then lets the search go on. No call waits for a lock
// the job holds: a job holds none while it searches (tools/serve/engine_queue.cpp runs it
// outside the session table's lock). Only the chosen engine is downloaded; both read the
// same packed files (kumalak-web.data).
const THREADS = self.crossOriginIsolated === true;
const MODULE = THREADS ? 'kumalak-web.js' : 'kumalak-web-1t.js';
importScripts(MODULE);

// The site's version (tools/wasm/make_site.cmake writes it in), said with {ready} so that
// a page of another version (a cache gone wrong) can tell.
const VERSION = '@KZ_SITE_VERSION@';

// Kalah's perfect level builds its endgame table on its first search (30 M positions,
// about 10 s) and saves it where default_egtb_dir() (mcts/kalah_solver.h) says: under
// emscripten's HOME, /home/web_user. That folder lives in the browser's IndexedDB
// (emscripten's IDBFS), so a table is built once per browser, not once per visit. A
// browser that keeps nothing (storage refused or full) builds it again next time, as
// before; a table that comes back damaged is refused by its checksum and built again.
//
// The kept tables are read back only when a call first names Kalah or Bantumi (a Kalah
// session exists only once a call has named its game): copying a 30 MB table out of
// IndexedDB before the engine starts cost every visit about 0.2 s before its first move,
// Togyz players included. That call, and every call after it, waits for the read; the
// worker then posts {tables: 'read' | 'not kept', kept: [names]} (the page ignores it; a
// test reads it) and answers them in order.
const TABLES = '/home/web_user/.cache/kumalak/egtb';
// The longest a Kalah call waits for IndexedDB (a browser may leave an open request
// unanswered): after it the calls go on and the tables are simply not kept.
const TABLES_WAIT_MS = 3000;
let tablesMounted = false;      // the folder is on IDBFS (nothing read yet: mounting reads nothing)
let tablesRead = 'no';          // 'reading' once started (once per worker), 'yes' once ended, kept or not
let tablesKept = null;          // tableNames() as last written to IndexedDB; null: not kept
let tablesWrite = Promise.resolve();

// The tables there, each with the time it was written: a table built again in place of
// one that did not read (damaged, an old format) has the same name but not the same time.
function tableNames(module) {
  return module.FS.readdir(TABLES).filter((name) => name.endsWith('.egtb')).sort()
      .map((name) => name + ' ' + module.FS.stat(TABLES + '/' + name).mtime.getTime()).join('\n');
}

// Before the engine starts: the tables' folder put on IDBFS, which reads nothing yet.
function mountTables(module) {
  try {
    module.FS.mkdirTree(TABLES);
    module.FS.mount(module.FS.filesystems.IDBFS, {}, TABLES);
    tablesMounted = true;
  } catch (error) {
    console.warn('the endgame tables are not kept in this browser: ' + error);
  }
}

// A call that may search a Kalah position: its game named anywhere in it.
function namesKalah(call) {
  return /kalah|bantumi/i.test(JSON.stringify(call.params || {}) + String(call.body || ''));
}

// The kept tables read back into the engine's folder, once; then the calls waiting go on.
function readKeptTables() {
  tablesRead = 'reading';
  let settled = false;
  const settle = (kept, why) => {
    if (settled) return;
    settled = true;
    if (why) console.warn('the endgame tables are not kept in this browser: ' + why);
    tablesKept = kept ? tableNames(engine) : null;
    tablesRead = 'yes';
    const names = kept ? tablesKept.split('\n').filter(Boolean).map((line) => line.split(' ')[0]) : [];
    postMessage({ tables: kept ? 'read' : 'not kept', kept: names });
    answerWaiting();
  };
  if (!tablesMounted) return settle(false, null);
  try {
    engine.FS.syncfs(true, (error) => settle(!error, error && String(error)));
    setTimeout(() => settle(false, 'IndexedDB did not answer'), TABLES_WAIT_MS);
  } catch (error) {
    settle(false, String(error));
  }
}

// After a call or a job: a table saved since the last look is written to IndexedDB (one
// write at a time).
function keepNewTables() {
  if (tablesKept === null) return;
  const names = tableNames(engine);
  if (names === tablesKept) return;
  tablesKept = names;
  tablesWrite = tablesWrite.then(() => new Promise((resolve) => {
    engine.FS.syncfs(false, (error) => {
      if (error) console.warn('an endgame table could not be kept in this browser: ' + error);
      resolve();
    });
  }));
}

let engine = null;
const waiting = [];
let runsJobs = false;    // the engine without threads: this worker runs its jobs
let workQueued = false;  // a run of the next job is already scheduled, or one is running

// The module's memory as bytes (with threads, the shared memory; without, the heap's view,
// which emscripten replaces when memory grows).
function heap() {
  return engine.wasmMemory ? new Uint8Array(engine.wasmMemory.buffer) : engine.HEAPU8;
}

function answer(call) {
  const request = JSON.stringify({ method: call.method, path: call.path, params: call.params || {},
                                   body: call.body || '', lang: call.lang || 'en' });
  const bytes = new TextEncoder().encode(request + '\0');
  const pointer = engine._malloc(bytes.length);
  heap().set(bytes, pointer);
  const out = engine._kz_page_call(pointer);
  engine._free(pointer);
  if (!out) return { id: call.id, status: 500, type: 'application/json', headers: [],
                     body: JSON.stringify({ error: 'out of memory' }) };
  const text = engine.UTF8ToString(out);
  engine._free(out);
  return { id: call.id, ...JSON.parse(text) };
}

// Without threads: the next queued job runs after the messages already waiting (a
// macrotask), so an answer is posted before the search it queued starts. When its search
// pauses, the job's call returns at once (kz_worker_paused() says so) and the worker
// waits for its end (Asyncify.whenDone()), answering calls meanwhile; one job at a time.
function scheduleWork() {
  if (!runsJobs || workQueued) return;
  workQueued = true;
  setTimeout(() => {
    const more = engine._kz_page_work();
    const done = engine._kz_worker_paused() ? engine.Asyncify.whenDone() : Promise.resolve(more);
    done.then((another) => {
      workQueued = false;
      keepNewTables();
      if (another) scheduleWork();
    }, (error) => {
      workQueued = false;
      console.warn('the engine job failed: ' + error);
    });
  }, 0);
}

function reply(call) {
  postMessage(answer(call));
  keepNewTables();
  scheduleWork();
}

// The calls waiting, answered in order: until the engine is ready, and from a call that
// names Kalah until the kept tables are read.
function answerWaiting() {
  while (engine && waiting.length > 0) {
    if (tablesRead !== 'yes' && namesKalah(waiting[0])) {
      if (tablesRead === 'no') readKeptTables();
      if (tablesRead !== 'yes') return;
      continue;  // read at once (nothing to read): the calls may have been answered meanwhile
    }
    reply(waiting.shift());
  }
}

self.onmessage = (event) => {
  waiting.push(event.data);
  answerWaiting();
};

createKumalak({
  noInitialRun: true,
  // Where the engine's own threads load the module from: a factory has no script
  // element to ask, least of all inside a worker.
  mainScriptUrlOrBlob: new URL(MODULE, self.location.href).href,
  // The one-thread engine packs the same files as the threaded one: the site ships them
  // once, as kumalak-web.data (tools/wasm/make_site.cmake checks that they are the same).
  locateFile: (path, prefix) => prefix + (path === 'kumalak-web-1t.data' ? 'kumalak-web.data' : path),
  print: (line) => console.log(line),
  printErr: (line) => console.warn(line),
  preRun: [mountTables],
}).then((module) => {
  if (module._kz_page_start(0) !== 0) throw new Error('the engine did not start');
  engine = module;
  runsJobs = module._kz_page_runs_jobs() === 1;
  postMessage({ ready: true, version: VERSION, threads: !runsJobs });
  answerWaiting();
}).catch((error) => postMessage({ failed: String(error) }));
