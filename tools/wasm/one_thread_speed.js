// Level expert's visits in 1 s in the page's engine without threads (kumalak-web-1t.js)
// under Node, through its protocol (`go movetime 1000`, the last `info` line's nodes and
// milliseconds; with --level, another level's: medium's alpha-beta stops at its nodes,
// so its milliseconds tell),
// from three positions (the start, ply 10, ply 20 of one game), for one or more builds
// side by side: each round runs every build in turn, the order turning round by round,
// so that a loaded machine's noise falls on all of them alike (docs/browser.md).
//   node tools/wasm/one_thread_speed.js [--level L] ROUNDS A/kumalak-web-1t.js [B/...]
'use strict';
const { loadOneThread, untilDone } = require('./one_thread_node.js');

const POSITIONS = {
  start: 'position startpos',
  'ply 10': 'position startpos moves 9 9 7 2 3 5 9 1 6 3',
  'ply 20': 'position startpos moves 9 9 7 2 3 5 9 1 6 3 2 8 3 4 1 5 8 4 3 4',
};

(async () => {
  const args = process.argv.slice(2);
  let level = 'expert';
  if (args[0] === '--level') level = args.splice(0, 2)[1];
  const rounds = Number(args[0]);
  const paths = args.slice(1);
  if (!(rounds > 0) || paths.length === 0) {
    console.error('usage: one_thread_speed.js [--level L] ROUNDS MODULE.js [MODULE.js ...]');
    process.exit(2);
  }
  const engines = [];
  for (const modulePath of paths) {
    const engine = { path: modulePath, written: [] };
    engine.module = await loadOneThread(modulePath, (line) => engine.written.push(line));
    if (engine.module._kz_protocol_start(0, 0) !== 0) {
      throw new Error(modulePath + ' did not start');
    }
    engines.push(engine);
  }
  // One line, to the end of its call (a build without pauses returns at its end).
  const send = (engine, line) => {
    const m = engine.module;
    const bytes = new TextEncoder().encode(line + '\0');
    const pointer = m._malloc(bytes.length);
    m.HEAPU8.set(bytes, pointer);
    return untilDone(m, () => m._kz_protocol_line(pointer)).then(() => m._free(pointer));
  };
  for (const engine of engines) {  // the network loaded and its kernels made, once
    await send(engine, 'position startpos');
    await send(engine, 'go nodes 64');
  }
  for (let round = 0; round < rounds; ++round) {
    const order = round % 2 ? [...engines].reverse() : engines;
    for (const engine of order) {
      const visits = [];
      for (const position of Object.values(POSITIONS)) {
        // A fresh player: nothing of the last search (its tree, its evaluation cache) kept.
        await send(engine, 'setoption name Level value ' + level);
        await send(engine, 'ucinewgame');
        engine.written = [];
        await send(engine, position);
        if (engine.written.length) throw new Error(position + ': ' + engine.written.join(' / '));
        await send(engine, 'go movetime 1000');
        const info = engine.written.filter((l) => /^info .* nodes \d+/.test(l)).pop() || '';
        const field = (name) => Number((info.match(new RegExp(` ${name} (\\d+)`)) || [0, 0])[1]);
        visits.push(`${field('nodes')}/${field('time')}ms`);
      }
      console.log(`round ${round + 1} ${engine.path}: ${level} ${visits.join(' ')} nodes ` +
                  `(${Object.keys(POSITIONS).join(', ')})`);
    }
  }
  process.exit(0);
})().catch((error) => {
  console.error(error && error.stack || error);
  process.exit(1);
});
