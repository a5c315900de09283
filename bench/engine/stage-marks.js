// Per-stage marks of POST /v1/simulate inside the built daemon, without editing dist/: preloaded with `node -r`, it
// stamps wall time and the process's CPU time (user + system, every thread, so the SQLite driver's thread counts in
// the stage that waits for it) at the request's start and its response's finish (Node's http diagnostics channels),
// on entering the service, around the frame write to the worker, on the worker's reply, around the run's insert,
// and at the first setImmediate after the finish (the work after the answer). At exit it writes the p50 of every
// stage over the requests after the first 200 to <tmpdir>/simulate-stages-<pid>.txt. Alternate two trees.
//
//   BENCH_DAEMON_NODE_ARGS="-r $PWD/bench/engine/stage-marks.js" N=1500 ROUNDS=1 node .tmp/bench-http/bench/engine/http.js
const dc = require('node:diagnostics_channel');
const { writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const SKIPPED = 200;
const fromDist = (path) => require(join(process.cwd(), 'dist', path));
const rows = [];
let current;

const stamp = (name) => {
  const cpu = process.cpuUsage();
  return [name, Number(process.hrtime.bigint()) / 1e3, cpu.user + cpu.system];
};
const mark = (name) => current?.push(stamp(name));

dc.subscribe('http.server.request.start', () => {
  current = [stamp('start')];
});
dc.subscribe('http.server.response.finish', () => {
  const row = current;
  current = undefined;
  if (!row) return;
  row.push(stamp('finish'));
  setImmediate(() => {
    row.push(stamp('after'));
    rows.push(row);
  });
});

const wrap = (proto, method, before, after) => {
  const original = proto[method];
  proto[method] = function (...args) {
    mark(before);
    const value = original.apply(this, args);
    if (after) mark(after);
    return value;
  };
};
wrap(fromDist('modules/simulation/simulation.service.js').SimulationService.prototype, 'simulate', 'service');
const { FramedSocket } = fromDist('common/framed-socket.js');
wrap(FramedSocket.prototype, 'send', 'frame', 'written');
wrap(FramedSocket.prototype, 'receive', 'reply');
const prepared = fromDist('common/database/prepared-write.js').PreparedWrite.prototype;
const insert = prepared.runWhile ? 'runWhile' : 'run';
const original = prepared[insert];
prepared[insert] = function (...args) {
  mark('insert');
  return original.apply(this, args).then((value) => {
    mark('committed');
    return value;
  });
};

process.on('exit', () => {
  const measured = rows.slice(SKIPPED);
  if (measured.length === 0) return;
  const names = measured[0].map(([name]) => name);
  // Requests of other routes (sign-up, metrics) have other marks.
  const same = measured.filter((row) => row.map(([name]) => name).join() === names.join());
  const p50 = (values) => values.sort((a, b) => a - b)[values.length >> 1];
  const span = (from, to, field) => p50(same.map((row) => row[to][field] - row[from][field])).toFixed(0);
  const lines = [`${same.length} requests; p50 in µs of wall and of process CPU`];
  for (let i = 1; i < names.length; i++) {
    lines.push(`${names[i - 1]} → ${names[i]}\twall ${span(i - 1, i, 1)}\tcpu ${span(i - 1, i, 2)}`);
  }
  const finish = names.indexOf('finish');
  lines.push(`start → finish\twall ${span(0, finish, 1)}\tcpu ${span(0, finish, 2)}`);
  writeFileSync(join(tmpdir(), `simulate-stages-${process.pid}.txt`), `${lines.join('\n')}\n`);
});
