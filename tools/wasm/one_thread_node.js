// The page's engine without threads (kumalak-web-1t.js) loaded under Node for the tests
// that drive it as the page's workers do (page_engine_node_test.js: page_worker.js's
// calls; protocol_node_test.js: engine_worker.js's protocol lines), and what they share:
// the checks' tally, a string passed to one of its exported functions, and the wait for a
// call whose search pauses.
'use strict';
const fs = require('fs');
const path = require('path');

// Each check printed as `ok: what` or `FAIL: what`; finish() prints the verdict and exits
// with 1 when any failed.
function checks() {
  let failures = 0;
  return {
    check(ok, what) {
      console.log((ok ? 'ok: ' : 'FAIL: ') + what);
      if (!ok) failures++;
    },
    finish() {
      console.log(failures ? `FAILED (${failures} failures)` : 'PASSED');
      process.exit(failures ? 1 : 0);
    },
  };
}

// The module at `modulePath`, not yet started, with the packed models of its folder read
// from disk (the page's worker downloads them); `print` receives what it writes on stdout.
async function loadOneThread(modulePath, print) {
  const folder = path.dirname(path.resolve(modulePath));
  // This emscripten loads the .wasm with fetch() wherever it exists, which Node's cannot
  // do for a file; without it the module reads the file.
  globalThis.fetch = undefined;
  const createKumalak = require(path.resolve(modulePath));
  const data = fs.readFileSync(path.join(folder, 'kumalak-web-1t.data'));
  return createKumalak({
    noInitialRun: true,
    locateFile: (file) => path.join(folder, file),
    getPreloadedPackage: () => data.buffer.slice(data.byteOffset, data.byteOffset + data.length),
    print: print || ((line) => console.log(line)),
    printErr: (line) => console.warn(line),
  });
}

// What `call(pointer)` returns for `text` passed as a C string in the module's memory,
// freed after the call.
function withCString(engine, text, call) {
  const bytes = new TextEncoder().encode(text + '\0');
  const pointer = engine._malloc(bytes.length);
  engine.HEAPU8.set(bytes, pointer);
  try {
    return call(pointer);
  } finally {
    engine._free(pointer);
  }
}

// What `call()` (an export that may pause, tools/wasm/worker_yield.h) returned, once it
// has ended: at once, or after the pauses of its search, as the workers wait for it (a
// module built without pauses always returns at the end).
function untilDone(engine, call) {
  const returned = call();
  const paused = engine._kz_worker_paused && engine._kz_worker_paused();
  return paused ? engine.Asyncify.whenDone() : Promise.resolve(returned);
}

module.exports = { checks, loadOneThread, untilDone, withCString };
