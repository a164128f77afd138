// The engine in a Web Worker (docs/browser.md): `kumalak engine`, the protocol of
// docs/protocol.md, for a page of one's own. The page posts the protocol's lines as
// strings and receives its answers as {line} messages:
//   const engine = new Worker('engine_worker.js');
//   engine.onmessage = (e) => { if (e.data.line) ... };  // {ready}, {line}, {error}, {exit}
//   engine.postMessage('position startpos'); engine.postMessage('go movetime 1000');
// Lines posted before the module has started are kept and passed on in order.
//
// Which engine: a cross-origin isolated page may share memory between workers, so it gets
// kumalak-web.js, whose `kumalak engine` reads its input on a thread of its own while
// the search runs on others: the page never waits, and `stop` ends a search at once.
// Any other page gets kumalak-web-1t.js, without threads, whose protocol answers one line
// at a time in this worker (kz_protocol_line, tools/wasm/protocol_lines.cpp): a `go`
// searches in this worker's thread, pausing every few tens of milliseconds
// (tools/wasm/worker_yield.h), and the lines that came meanwhile are answered then as
// natively: `isready` with readyok, `stop` ends the search with its bestmove (`go
// infinite` runs until then), the session's commands are refused until it ends. Lines
// after a `stop` (or `quit`) wait for the search's end, so that `stop`, `position`, `go`
// sent together play in order. The page itself never waits in either.
const THREADS = self.crossOriginIsolated === true;
const MODULE = THREADS ? 'kumalak-web.js' : 'kumalak-web-1t.js';
importScripts(MODULE);

let engine = null;
let ended = false;  // after quit (without threads: the protocol has ended)
const waiting = [];
// Without threads: a line whose search is paused (its call goes on later), whether a stop
// or quit was passed to it, and the lines that wait for its end.
let searching = false;
let stopping = false;
const afterSearch = [];

// With threads: the bytes go into the module's memory and to kz_push_input, which the
// engine's reading thread waits on (tools/wasm/command_input.cpp).
function push(text) {
  const bytes = new TextEncoder().encode(text);
  const pointer = engine._malloc(bytes.length);
  new Uint8Array(engine.wasmMemory.buffer).set(bytes, pointer);
  engine._kz_push_input(pointer, bytes.length);
  engine._free(pointer);
}

// Without threads: each line of the message answered in turn. A line whose search pauses
// returns at once; the lines after it are answered meanwhile (those after a stop once the
// search has ended), and its end is awaited (Asyncify.whenDone()).
function answer(text) {
  for (const line of text.split(/\r?\n/)) {
    if (ended) return;
    if (stopping) {
      afterSearch.push(line);
      continue;
    }
    if (searching && /^\s*(stop|quit)\s*$/.test(line)) stopping = true;
    const bytes = new TextEncoder().encode(line + '\0');
    const pointer = engine._malloc(bytes.length);
    engine.HEAPU8.set(bytes, pointer);
    const goesOn = engine._kz_protocol_line(pointer);
    if (!searching && engine._kz_worker_paused()) {
      searching = true;
      engine.Asyncify.whenDone().then((stillOn) => {
        engine._free(pointer);
        searchEnded(stillOn);
      }, (error) => {
        postMessage({error: String(error)});
        searchEnded(1);
      });
      continue;
    }
    engine._free(pointer);
    if (!goesOn) end();
  }
}

function end() {
  if (ended) return;
  ended = true;
  postMessage({exit: 0});
}

function searchEnded(stillOn) {
  searching = false;
  stopping = false;
  if (!stillOn) end();
  const lines = afterSearch.splice(0);
  if (lines.length) answer(lines.join('\n'));
}

function pass(text) {
  if (THREADS) push(text + '\n'); else answer(text);
}

self.onmessage = (event) => {
  const text = String(event.data);
  if (engine) pass(text); else waiting.push(text);
};

const settings = {
  print: (line) => postMessage({line}),
  printErr: (line) => postMessage({error: line}),
};
if (THREADS) {
  Object.assign(settings, {
    arguments: ['engine'],
    // Where the engine's own threads load the module from: a factory has no script
    // element to ask, least of all inside a worker.
    mainScriptUrlOrBlob: new URL(MODULE, self.location.href).href,
    kzStartInput: () => {},  // the input comes from onmessage
    onExit: (status) => postMessage({exit: status}),
  });
} else {
  Object.assign(settings, {
    noInitialRun: true,
    // The one-thread engine packs the same files as the threaded one: a site ships them
    // once, as kumalak-web.data (tools/wasm/make_site.cmake checks that they are the same).
    locateFile: (path, prefix) =>
      prefix + (path === 'kumalak-web-1t.data' ? 'kumalak-web.data' : path),
  });
}

createKumalak(settings).then((module) => {
  if (!THREADS && module._kz_protocol_start(0, 0) !== 0)
    throw new Error('the engine did not start');
  engine = module;
  // Without threads the lines kept are answered here and now: {ready} comes first.
  if (!THREADS) postMessage({ready: true, threads: false});
  for (const text of waiting.splice(0)) pass(text);
  if (THREADS) postMessage({ready: true, threads: true});
}).catch((error) => postMessage({error: String(error)}));
