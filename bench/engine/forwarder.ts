/**
 * The topology's floor for bench/engine/http.ts: the least a service of this design does per `POST /v1/simulate`,
 * with nothing of the daemon's own. A bare `node:http` server (no Fastify, no Nest, no authentication, no
 * validation) hands each body to one engine worker over its socket (4-byte length + JSON frames, as the pool does),
 * records the run with one committed insert through node-sqlite3 (a prepared statement, WAL, `synchronous =
 * normal`, the daemon's pragmas and a table shaped like `simulation_runs`), then answers the worker's result.
 * Whatever the daemon's figure holds above this one is the service's own cost; what this one holds is the client,
 * the loopback HTTP round trip, the worker hop and the store's thread hop, on this machine.
 *
 *   node forwarder.js <data dir>     # prints "listening <port>" once it takes requests (port picked by the kernel)
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import sqlite3 from 'sqlite3';
import { startWorker } from './worker-client';

const [dataDir] = process.argv.slice(2);

function openStore(): Promise<sqlite3.Statement> {
  const db = new sqlite3.Database(join(dataDir, 'floor.sqlite'));
  return new Promise((opened, failed) =>
    db.exec(
      'pragma journal_mode = wal; pragma synchronous = normal; ' +
        'create table runs (id text primary key, org_id text not null, request_hash text not null, ' +
        'objective text not null, recommended_action text, expected_value real, confidence real, ' +
        'compute_ms real not null, created_at integer not null); ' +
        'create index runs_org_created on runs (org_id, created_at);',
      (error) => {
        if (error) return failed(error);
        const insert = db.prepare('insert into runs values (?, ?, ?, ?, ?, ?, ?, ?, ?)', (prepareError) => {
          if (prepareError) failed(prepareError);
          else opened(insert);
        });
      },
    ),
  );
}

async function main(): Promise<void> {
  const worker = await startWorker(dataDir);
  process.on('exit', () => worker.stop());
  const insert = await openStore();
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
      void worker.run(body).then((reply) => {
        const result = reply.result ?? {};
        const row = [
          `run_${randomBytes(12).toString('hex')}`,
          'org_bench',
          randomBytes(32).toString('hex'),
          'maximize_net_value',
          result.recommended_action ?? null,
          null,
          null,
          Number(result.compute_ms ?? 0),
          Date.now(),
        ];
        insert.run(row, (error: Error | null) => {
          if (error) throw error;
          outgoing.setHeader('content-type', 'application/json').end(JSON.stringify(result));
        });
      });
    });
  });
  server.listen(0, '127.0.0.1', () =>
    process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`),
  );
}

void main();
