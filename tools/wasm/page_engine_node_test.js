// The page's engine without threads (kumalak-web-1t.js, docs/browser.md) under Node, as
// page_worker.js drives it (CTest WasmPageEngineOneThread): it starts, answers a call at
// once and thinks only when asked (kz_page_work, one job to its end), plays the engine's
// move and gives a hint, refuses bad input in the request's language, works out a game's
// rating evidence one judged move per job with a game's move in between, and the
// Openings view's engine column comes in its call, never `pending`. A job's search pauses
// for the calls that come meanwhile: a state call is answered while a hint at expert runs
// and shows its best move so far, and a stop ends the hint within 0.3 s; the same while
// Kalah's perfect level builds its endgame table.
//   node tools/wasm/page_engine_node_test.js build-wasm/one-thread/tools/kumalak-web-1t.js
'use strict';
const { checks, loadOneThread, untilDone, withCString } = require('./one_thread_node.js');

const { check, finish } = checks();

(async () => {
  const engine = await loadOneThread(process.argv[2] || '');
  check(engine._kz_page_runs_jobs() === 1, 'the module without threads runs its jobs when asked');
  check(engine._kz_page_start(0) === 0, 'the engine starts');

  const call = (method, callPath, body, params, lang) => {
    const text = JSON.stringify({ method, path: callPath, params: params || {},
                                  body: body ? JSON.stringify(body) : '', lang: lang || 'en' });
    const out = withCString(engine, text, (pointer) => engine._kz_page_call(pointer));
    const answer = JSON.parse(engine.UTF8ToString(out));
    engine._free(out);
    return { status: answer.status, body: JSON.parse(answer.body) };
  };
  const state = (session) => call('GET', '/api/state', null, { session }).body;
  // One job, as page_worker.js runs it: what kz_page_work returned, at the job's end.
  const work = () => untilDone(engine, () => engine._kz_page_work());

  const game = call('POST', '/api/new', { game: 'togyz', level: 'hard', human: 'white' }).body;
  const moved = call('POST', '/api/move', { session: game.session, move: 7 });
  check(moved.status === 200, 'a move is answered at once');
  check(state(game.session).engine.task === 'move', 'the engine has not thought yet');
  check(await work() === 1, 'kz_page_work ran the engine move');
  check(await work() === 0, 'nothing else was queued');
  const after = state(game.session);
  check(after.moves.length === 2 && after.engine.task === '',
        `the engine answered the move (${after.moves.length} plies)`);

  call('POST', '/api/hint', { session: game.session, level: 'hard' });
  while (await work() === 1) {}
  const hint = state(game.session).hint;
  check(hint && hint.nodes === 1000 && hint.moves.length === 3,
        `a hint at hard: 1000 visits, 3 moves (${hint && hint.nodes})`);

  const bad = call('POST', '/api/move', { session: game.session, move: 99 }, null, 'ru');
  check(bad.status === 400 && /[а-я]/.test(bad.body.error || ''),
        `a bad move is refused in Russian: ${bad.body.error}`);

  // A game's rating evidence: one job per judged move; the game's move queued meanwhile
  // runs after one of them.
  const record = '[White "Ann"]\n[Black "Bob"]\n[Result "1-0"]\n\n1. 76(10) 87(2) 2. 99 91 3. 78 91(14) 1-0\n';
  const started = call('POST', '/api/games/evidence', { pgn: record, player: 'Ann', visits: 100 });
  check(started.status === 200 && started.body.done === false && started.body.moves === 6,
        `the evidence is queued (${JSON.stringify(started.body)})`);
  const id = started.body.session;
  call('POST', '/api/move', { session: game.session, move: 1 });
  const ply = Date.now();
  check(await work() === 1, 'kz_page_work judged the first move');
  const plyMs = Date.now() - ply;
  check(await work() === 1 && state(game.session).engine.task === '',
        `the game's move came next (one judged move took ${plyMs} ms)`);
  const between = call('GET', '/api/games/evidence', null, { session: id }).body;
  check(between.done === false && between.judged === 1, `one move judged then (${between.judged})`);
  const rest = Date.now();
  while (await work() === 1) {}
  console.log(`the other 5 moves judged and the answer made in ${Date.now() - rest} ms`);
  const evidence = call('GET', '/api/games/evidence', null, { session: id });
  check(evidence.status === 200 && evidence.body.done && typeof evidence.body.accuracy === 'number' &&
        evidence.body.player.length === evidence.body.grid.length,
        `the evidence: accuracy ${evidence.body.accuracy}, ${evidence.body.grid && evidence.body.grid.length} ratings`);

  // A hint at expert (a network search of 1 s) paused while it runs: a state call is
  // answered, showing its best move so far; a stop is answered and ends it at once.
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  call('POST', '/api/hint', { session: game.session, level: 'expert' });
  let ended = false;
  const hintJob = work().then((ran) => { ended = true; return ran; });
  await sleep(400);
  let start = process.hrtime.bigint();
  const during = state(game.session);
  const stateMs = Number(process.hrtime.bigint() - start) / 1e6;
  const progress = during.engine.progress;
  check(!ended && during.engine.task === 'hint' && during.engine.running && progress &&
            progress.best >= 1 && progress.best <= 9,
        `a state call is answered in ${stateMs.toFixed(1)} ms while the hint searches, ` +
        `its best move so far ${progress && progress.best} (${progress && progress.nodes} visits)`);
  start = process.hrtime.bigint();
  const stop = call('POST', '/api/stop', { session: game.session });
  check(stop.status === 200 && !ended, 'the stop is answered while the hint searches');
  const ran = await hintJob;
  const stopMs = Number(process.hrtime.bigint() - start) / 1e6;
  check(ran === 1 && stopMs < 300, `the stop ended the hint's search in ${stopMs.toFixed(0)} ms`);
  const afterStop = state(game.session);
  check(afterStop.engine.task === '' && !afterStop.engine.running &&
            afterStop.message === 'stopped',
        `the game says the hint stopped (${afterStop.message})`);

  // Kalah's perfect level builds its endgame table on its first search (30 M positions,
  // 11-12 s here): the build pauses for the calls too, and a stop ends it at once, the
  // positions solved kept for the next search.
  const kalah = call('POST', '/api/new', { game: 'kalah', level: 'medium', human: 'white' }).body;
  call('POST', '/api/hint', { session: kalah.session, level: 'perfect' });
  ended = false;
  const perfectJob = work().then((ran) => { ended = true; return ran; });
  await sleep(400);
  start = process.hrtime.bigint();
  const building = state(kalah.session);
  const buildingMs = Number(process.hrtime.bigint() - start) / 1e6;
  check(!ended && building.engine.task === 'hint' && building.engine.running,
        `a state call is answered in ${buildingMs.toFixed(1)} ms while the perfect level builds its table`);
  start = process.hrtime.bigint();
  const stopBuild = call('POST', '/api/stop', { session: kalah.session });
  check(stopBuild.status === 200 && !ended, 'the stop is answered while the table is built');
  const builtRan = await perfectJob;
  const stopBuildMs = Number(process.hrtime.bigint() - start) / 1e6;
  check(builtRan === 1 && stopBuildMs < 300,
        `the stop ended the table's build in ${stopBuildMs.toFixed(0)} ms`);
  check(state(kalah.session).message === 'stopped', 'the game says the hint stopped');

  const column = call('GET', '/api/openings/engine', null, { game: 'togyz' });
  check(column.status === 200 && column.body.pending === false && column.body.engine,
        'the Openings view\'s engine column is searched in its call');

  finish();
})().catch((error) => {
  console.log('FAIL: ' + error);
  process.exit(1);
});
