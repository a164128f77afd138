// How this copy of the page reaches its engine. The page compiled into `kumalak serve`
// asks that server's JSON API (docs/serve.md); the static site built with the
// WebAssembly engine (tools/wasm/web_site.cmake) writes its own copy of this file with
// `localEngine: true` and its version, and answers the same calls in a Web Worker of the
// page itself (tools/wasm/page_worker.js), online or not.
export const SITE = { localEngine: false, version: "" };
