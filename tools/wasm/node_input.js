// Prepended to the WebAssembly `kumalak` (--pre-js): under Node, the program's input
// (tools/command_input.h) comes from stdin, read here on the JavaScript thread as it
// arrives and pushed into the module, which waits for it on main()'s own thread.
Module['kzStartInput'] = function () {
  if (typeof process !== 'object' || !process.stdin) return;
  process.stdin.on('data', function (chunk) {
    var pointer = _malloc(chunk.length);
    HEAPU8.set(chunk, pointer);
    _kz_push_input(pointer, chunk.length);
    _free(pointer);
  });
  process.stdin.on('end', function () { _kz_push_input(0, 0); });
};
