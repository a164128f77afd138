// The page's engine in a Web Worker (docs/browser.md): `kumalak serve`'s JSON API
// (docs/serve.md) answered by the WebAssembly build itself (tools/wasm/page_api.cpp), so
// the page plays, hints, analyses and judges puzzles with no server. The page
// (tools/web/api.js) posts {id, method, path, params, body, lang} and receives
// {id, status, type, body, headers}; before the engine is ready it receives
// {ready: true, version} once, or {failed: reason}. Calls posted before then are kept and
// answered in order.
importScripts('kumalak-web.js');

// The site's version (tools/wasm/make_site.cmake writes it in), said with {ready} so that
// a page of another version (a cache gone wrong) can tell.
const VERSION = '@KZ_SITE_VERSION@';

let engine = null;
const waiting = [];

function answer(call) {
  const request = JSON.stringify({ method: call.method, path: call.path, params: call.params || {},
                                   body: call.body || '', lang: call.lang || 'en' });
  const bytes = new TextEncoder().encode(request + '\0');
  const pointer = engine._malloc(bytes.length);
  new Uint8Array(engine.wasmMemory.buffer).set(bytes, pointer);
  const out = engine._kz_page_call(pointer);
  engine._free(pointer);
  if (!out) return { id: call.id, status: 500, type: 'application/json', headers: [],
                     body: JSON.stringify({ error: 'out of memory' }) };
  const text = engine.UTF8ToString(out);
  engine._free(out);
  return { id: call.id, ...JSON.parse(text) };
}

self.onmessage = (event) => {
  if (engine) postMessage(answer(event.data)); else waiting.push(event.data);
};

createKumalak({
  noInitialRun: true,
  // Where the engine's own threads load the module from: a factory has no script
  // element to ask, least of all inside a worker.
  mainScriptUrlOrBlob: new URL('kumalak-web.js', self.location.href).href,
  print: (line) => console.log(line),
  printErr: (line) => console.warn(line),
}).then((module) => {
  if (module._kz_page_start(0) !== 0) throw new Error('the engine did not start');
  engine = module;
  postMessage({ ready: true, version: VERSION });
  for (const call of waiting.splice(0)) postMessage(answer(call));
}).catch((error) => postMessage({ failed: String(error) }));
