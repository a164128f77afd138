// Prepended to every program of the WebAssembly build (--pre-js), for Node:
//  - the program sees the process's environment as the native one does (KZ_MODELS_DIR,
//    KUMALAK_PRECISION, LANG, KZ_TEST...); emscripten otherwise gives a module only a few
//    fixed variables;
//  - the .wasm file is read from the disk: this emscripten loads it with fetch() wherever
//    fetch exists, which Node 18+ has but cannot use on a file path. The program is the
//    whole process, so nothing else misses it.
if (typeof process === 'object' && process.versions && process.versions.node) {
  globalThis.fetch = undefined;
  Module['preRun'] = Module['preRun'] || [];
  Module['preRun'].push(function () { Object.assign(ENV, process.env); });
}
