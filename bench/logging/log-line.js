// CPU per request log line: the built daemon's createLogger('info') from <tree>/dist writes one `http_request` line
// per millisecond to stdout; the process's CPU time (user + system, every thread) per line goes to stderr.
// LEVEL=silent gives the timer loop alone. Direction only under load: alternate two trees.
//
//   node bench/logging/log-line.js /work/main > /tmp/log.txt
const { createLogger } = require(`${process.argv[2]}/dist/common/logging/logger.js`);

const logger = createLogger(process.env.LEVEL || 'info');
const LINES = Number(process.env.LINES || 3000);
let written = 0;
const start = process.cpuUsage();
function tick() {
  logger.info(
    {
      event: 'http_request',
      request_id: `req-${written}`,
      method: 'POST',
      route: '/v1/simulate',
      status: 201,
      duration_ms: 1.23,
    },
    'request',
  );
  if (++written < LINES) setTimeout(tick, 1);
  else
    setTimeout(() => {
      const used = process.cpuUsage(start);
      process.stderr.write(
        `${process.argv[2]}: ${((used.user + used.system) / LINES).toFixed(1)} µs of CPU per line\n`,
      );
    }, 300);
}
tick();
