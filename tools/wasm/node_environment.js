// Prepended to every program of the WebAssembly build (--pre-js): under Node it sees the
// process's environment as the native one does (KZ_MODELS_DIR, KUMALAK_PRECISION, LANG,
// KZ_TEST...); emscripten otherwise gives a module only a few fixed variables.
if (typeof process === 'object' && process.env) {
  Module['preRun'] = Module['preRun'] || [];
  Module['preRun'].push(function () { Object.assign(ENV, process.env); });
}
