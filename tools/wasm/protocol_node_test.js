// The engine protocol (docs/protocol.md) in the page's engine without threads
// (kumalak-web-1t.js), one line at a time as engine_worker.js drives it in a page the
// browser does not isolate (CTest WasmProtocolOneThread): each line is answered before
// its call returns, a search by nodes with the shipped network included; `go infinite`
// is bounded by MoveTime and holds its bestmove until `stop`; Threads is 1 only; a level
// named by a rating plays (the packed human model); bad input is answered with `error`;
// nothing is answered after `quit`.
//   node tools/wasm/protocol_node_test.js build-wasm/one-thread/tools/kumalak-web-1t.js
'use strict';
const { checks, loadOneThread, withCString } = require('./one_thread_node.js');

const { check, finish } = checks();

(async () => {
  let written = [];
  const engine = await loadOneThread(process.argv[2] || '', (line) => written.push(line));
  check(engine._kz_protocol_start(0, 0) === 0, 'the protocol starts');

  // Sends one line; returns [what kz_protocol_line returned, the lines written meanwhile,
  // the seconds it took].
  const send = (line) => {
    written = [];
    const start = process.hrtime.bigint();
    const goesOn = withCString(engine, line, (pointer) => engine._kz_protocol_line(pointer));
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    return [goesOn, written, seconds];
  };
  const bestmoveOf = (lines) => lines.filter((l) => l.startsWith('bestmove'));

  let [goesOn, lines] = send('uci');
  check(goesOn === 1 && lines[lines.length - 1] === 'uciok',
        'uci is answered with uciok in its call');
  check(lines.includes('option name Threads type spin default 1 min 1 max 1'),
        'the greeting announces Threads 1..1');
  [, lines] = send('isready');
  check(lines.length === 1 && lines[0] === 'readyok', 'isready is answered with readyok');

  send('position startpos moves 76 98');
  [, lines] = send('go nodes 300');
  const best = bestmoveOf(lines);
  check(best.length === 1 && /^bestmove [1-9]$/.test(best[0]) &&
            lines[lines.length - 1] === best[0],
        `go nodes 300 (expert, the network) has answered when its call returns: ${best[0]}`);
  check(lines.some((l) => / nodes (\d+)/.test(l)), 'with info lines before it');

  send('setoption name MoveTime value 300');
  let seconds;
  [, lines, seconds] = send('go infinite');
  check(seconds < 5, `go infinite is bounded by MoveTime (${seconds.toFixed(2)} s)`);
  check(lines.some((l) => l.startsWith('info ')) && bestmoveOf(lines).length === 0,
        'go infinite writes info lines and holds its bestmove');
  [, lines] = send('isready');
  check(lines.length === 1 && lines[0] === 'readyok', 'isready is answered while it holds it');
  [, lines] = send('position startpos');
  check(lines.length === 1 && lines[0] === "error 'position' during a search: send stop first",
        'the session is not changed before stop');
  [, lines] = send('stop');
  check(lines.length === 1 && /^bestmove [1-9]$/.test(lines[0]),
        `stop writes the bestmove: ${lines[0]}`);
  [, lines] = send('stop');
  check(lines.length === 0, 'a second stop writes nothing');

  [, lines] = send('setoption name Threads value 4');
  check(lines.length === 1 && lines[0].startsWith('error option Threads'),
        `Threads 4 refused: ${lines[0]}`);
  [, lines] = send('go nodes x');
  check(lines.length === 1 && lines[0].startsWith('error '),
        `bad input answered with error: ${lines[0]}`);

  send('setoption name MoveTime value 0');
  [, lines] = send('setoption name Level value 1400');
  check(lines.length === 0, 'a level named by a rating is taken (the packed human model)');
  send('position startpos');
  [, lines] = send('go');
  check(bestmoveOf(lines).length === 1, `the rating level plays: ${bestmoveOf(lines)[0]}`);

  [goesOn, lines] = send('quit');
  check(goesOn === 0 && lines.length === 0, 'quit ends the protocol');
  [goesOn, lines] = send('isready');
  check(goesOn === 0 && lines.length === 0, 'nothing is answered after quit');

  finish();
})().catch((error) => {
  console.log('FAIL: ' + (error && error.stack || error));
  process.exit(1);
});
