// The engine protocol (docs/protocol.md) in the page's engine without threads
// (kumalak-web-1t.js), one line at a time as engine_worker.js drives it in a page the
// browser does not isolate (CTest WasmProtocolOneThread): each line is answered by the
// end of its call, a search by nodes with the shipped network included; `go infinite`
// pauses its call and runs until `stop`: meanwhile `isready` is answered with readyok at
// once, the session's commands are refused, and `stop` ends it with its bestmove within
// 0.3 s (the network's MCTS, and medium's alpha-beta); Threads is 1 only; a level named
// by a rating plays (the packed human model); bad input is answered with `error`;
// nothing is answered after `quit`.
//   node tools/wasm/protocol_node_test.js build-wasm/one-thread/tools/kumalak-web-1t.js
'use strict';
const { checks, loadOneThread, untilDone } = require('./one_thread_node.js');

const { check, finish } = checks();

(async () => {
  let written = [];
  const engine = await loadOneThread(process.argv[2] || '', (line) => written.push(line));
  check(engine._kz_protocol_start(0, 0) === 0, 'the protocol starts');

  // Whether a call is paused (a module built without pauses never is).
  const pausedNow = () => !!engine._kz_worker_paused && engine._kz_worker_paused() === 1;
  // Passes one line as engine_worker.js does: {paused: whether its call is paused (a
  // search goes on), done: what kz_protocol_line returned, at the call's end}.
  const pass = (line) => {
    const bytes = new TextEncoder().encode(line + '\0');
    const pointer = engine._malloc(bytes.length);
    engine.HEAPU8.set(bytes, pointer);
    const done = untilDone(engine, () => engine._kz_protocol_line(pointer));
    const paused = pausedNow();
    return { paused, done: done.then((goesOn) => { engine._free(pointer); return goesOn; }) };
  };
  // Sends one line; resolves with [what kz_protocol_line returned, the lines written
  // meanwhile].
  const send = async (line) => {
    written = [];
    const goesOn = await pass(line).done;
    return [goesOn, written];
  };
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const bestmoveOf = (lines) => lines.filter((l) => l.startsWith('bestmove'));
  // A line passed while another's call is paused, as engine_worker.js passes it: a plain
  // call, answered before it returns (the paused call is still the one paused after it).
  const lineDuringSearch = (line) => {
    const bytes = new TextEncoder().encode(line + '\0');
    const pointer = engine._malloc(bytes.length);
    engine.HEAPU8.set(bytes, pointer);
    const goesOn = engine._kz_protocol_line(pointer);
    engine._free(pointer);
    check(goesOn === 1 && pausedNow(),
          `'${line}' is answered in its call and the search stays paused`);
  };

  let [goesOn, lines] = await send('uci');
  check(goesOn === 1 && lines[lines.length - 1] === 'uciok',
        'uci is answered with uciok in its call');
  check(lines.includes('option name Threads type spin default 1 min 1 max 1'),
        'the greeting announces Threads 1..1');
  [, lines] = await send('isready');
  check(lines.length === 1 && lines[0] === 'readyok', 'isready is answered with readyok');

  await send('position startpos moves 76 98');
  [, lines] = await send('go nodes 300');
  const best = bestmoveOf(lines);
  check(best.length === 1 && /^bestmove [1-9]$/.test(best[0]) &&
            lines[lines.length - 1] === best[0],
        `go nodes 300 (expert, the network) has answered by its call's end: ${best[0]}`);
  check(lines.some((l) => / nodes (\d+)/.test(l)), 'with info lines before it');

  // go infinite (MoveTime set: it bounds no infinite search) searches until stop, its
  // call paused while the lines sent meanwhile are answered at once.
  await send('setoption name MoveTime value 300');
  written = [];
  let ended = false;
  const infinite = pass('go infinite');
  infinite.done.then(() => { ended = true; });
  check(infinite.paused, 'go infinite pauses its call for the lines that come meanwhile');
  await sleep(500);
  check(!ended && written.some((l) => l.startsWith('info ')) && bestmoveOf(written).length === 0,
        'after 0.5 s (past MoveTime) it still searches, with info lines and no bestmove');
  written = [];
  let start = process.hrtime.bigint();
  lineDuringSearch('isready');
  const readyMs = Number(process.hrtime.bigint() - start) / 1e6;
  check(written.length === 1 && written[0] === 'readyok',
        `isready is answered with readyok at once during the search (${readyMs.toFixed(1)} ms)`);
  written = [];
  lineDuringSearch('position startpos');
  check(written.length === 1 && written[0] === "error 'position' during a search: send stop first",
        'the session is not changed before stop');
  await sleep(100);
  written = [];
  start = process.hrtime.bigint();
  lineDuringSearch('stop');
  const stillOn = await infinite.done;
  const stopMs = Number(process.hrtime.bigint() - start) / 1e6;
  const stopped = bestmoveOf(written);
  check(stillOn === 1 && stopped.length === 1 && /^bestmove [1-9]$/.test(stopped[0]) &&
            written[written.length - 1] === stopped[0] && stopMs < 300,
        `stop ends it with ${stopped[0]} in ${stopMs.toFixed(0)} ms`);
  [, lines] = await send('stop');
  check(lines.length === 0, 'a second stop writes nothing');

  // The alpha-beta search (level medium) pauses deep in its recursion as well.
  await send('setoption name Level value medium');
  written = [];
  const alphaBeta = pass('go infinite');
  await sleep(300);
  start = process.hrtime.bigint();
  lineDuringSearch('stop');
  await alphaBeta.done;
  const abMs = Number(process.hrtime.bigint() - start) / 1e6;
  const abBest = bestmoveOf(written);
  check(alphaBeta.paused && abBest.length === 1 && /^bestmove [1-9]$/.test(abBest[0]) && abMs < 300,
        `medium's alpha-beta: stop ends go infinite with ${abBest[0]} in ${abMs.toFixed(0)} ms`);
  await send('setoption name Level value expert');

  [, lines] = await send('setoption name Threads value 4');
  check(lines.length === 1 && lines[0].startsWith('error option Threads'),
        `Threads 4 refused: ${lines[0]}`);
  [, lines] = await send('go nodes x');
  check(lines.length === 1 && lines[0].startsWith('error '),
        `bad input answered with error: ${lines[0]}`);

  await send('setoption name MoveTime value 0');
  [, lines] = await send('setoption name Level value 1400');
  check(lines.length === 0, 'a level named by a rating is taken (the packed human model)');
  await send('position startpos');
  [, lines] = await send('go');
  check(bestmoveOf(lines).length === 1, `the rating level plays: ${bestmoveOf(lines)[0]}`);

  [goesOn, lines] = await send('quit');
  check(goesOn === 0 && lines.length === 0, 'quit ends the protocol');
  [goesOn, lines] = await send('isready');
  check(goesOn === 0 && lines.length === 0, 'nothing is answered after quit');

  finish();
})().catch((error) => {
  console.log('FAIL: ' + (error && error.stack || error));
  process.exit(1);
});
