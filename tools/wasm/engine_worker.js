// The engine in a Web Worker (docs/browser.md): `kumalak engine` from kumalak-web.js, the
// WebAssembly build for the page. The page posts the protocol's lines (docs/protocol.md)
// as strings and receives its answers as {line} messages, so it never waits for a search:
//   const engine = new Worker('engine_worker.js');
//   engine.onmessage = (e) => { if (e.data.line) ... };  // {ready}, {line}, {error}
//   engine.postMessage('position startpos'); engine.postMessage('go movetime 1000');
// Lines posted before the module has started are kept and passed on in order.
importScripts('kumalak-web.js');

let engine = null;
const waiting = [];

// The bytes go into the module's memory and to kz_push_input, which the engine's
// reading thread waits on (tools/wasm/command_input.cpp).
function push(text) {
  const bytes = new TextEncoder().encode(text);
  const pointer = engine._malloc(bytes.length);
  new Uint8Array(engine.wasmMemory.buffer).set(bytes, pointer);
  engine._kz_push_input(pointer, bytes.length);
  engine._free(pointer);
}

self.onmessage = (event) => {
  const text = String(event.data) + '\n';
  if (engine) push(text); else waiting.push(text);
};

createKumalak({
  arguments: ['engine'],
  // Where the engine's own threads load the module from: a factory has no script
  // element to ask, least of all inside a worker.
  mainScriptUrlOrBlob: new URL('kumalak-web.js', self.location.href).href,
  print: (line) => postMessage({line}),
  printErr: (line) => postMessage({error: line}),
  kzStartInput: () => {},  // the input comes from onmessage
  onExit: (status) => postMessage({exit: status}),
}).then((module) => {
  engine = module;
  for (const text of waiting.splice(0)) push(text);
  postMessage({ready: true});
}).catch((error) => postMessage({error: String(error)}));
