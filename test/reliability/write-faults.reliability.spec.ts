import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { Appliance } from '../support/appliance';
import { seededRandom } from '../support/seeded-random';
import { ImmutableDatabase, immutableFlagHolds } from '../support/immutable-files';
import { httpRequest, HttpResult, makeTempDir } from '../support/test-app';
import { waitUntil } from '../support/wait';
import { readDatasetFile } from '../support/dataset-files';
import { IntegrityChecker } from './support/data-dir';
import { seedOfThisRun } from './support/property';

/**
 * Write faults under the built daemon (docs/reliability.md#write-faults): an I/O error at the k-th write of an
 * ingest, for every k, through an LD_PRELOAD shim compiled here; and the main database made immutable under the
 * running daemon (`chattr +i`), then writable again.
 */

jest.setTimeout(300_000);

const SHIM_SOURCE = join(__dirname, 'support', 'fault-shim.c');
/**
 * Every k up to RELIABILITY_FAULT_EVERY is tried, and the last FAULT_TAIL (the finish: text fix-ups, syncs, rename);
 * between them a seeded sample of RELIABILITY_FAULT_SAMPLE. The calls between are the same page writes of the row
 * transactions over and over.
 */
const EVERY_K_UP_TO = Number(process.env.RELIABILITY_FAULT_EVERY ?? 32);
const FAULT_SAMPLE = Number(process.env.RELIABILITY_FAULT_SAMPLE ?? 16);
const FAULT_TAIL = 12;

/**
 * Whether the machine has a C compiler for the shim (the parts that need it are skipped without one). Only asked
 * while jest collects the file: the shim is compiled, and every directory made, in the beforeAll of a part that runs.
 */
const hasCompiler = process.platform === 'linux' && spawnSync('gcc', ['--version']).status === 0;
if (!hasCompiler) process.stdout.write('write faults: no C compiler, the shim parts are skipped\n');
let builtShim: string | undefined;

/** Compiles the shim once, for the first part that needs it; the top-level afterAll removes it. */
function shim(): string {
  if (builtShim) return builtShim;
  const out = join(makeTempDir('ds-fault-shim-'), 'fault-shim.so');
  const built = spawnSync('gcc', [
    '-shared',
    '-fPIC',
    '-O2',
    '-Wall',
    '-o',
    out,
    SHIM_SOURCE,
    '-ldl',
    '-lpthread',
  ]);
  if (built.status !== 0) throw new Error(`the fault shim does not compile: ${built.stderr.toString()}`);
  builtShim = out;
  return out;
}

const ROWS = 5_000;
/** Two row messages to the writer thread, and a column widened to text at the end (the finish's fix-up pass). */
const CSV = [
  'id,region,amount,code',
  ...Array.from(
    { length: ROWS },
    (_, i) => `${i},r${i % 7},${i * 3}.5,${i % 997 === 0 ? `c${i}` : i % 1000}`,
  ),
].join('\n');
const EXPECTED = { n: ROWS, ids: (ROWS * (ROWS - 1)) / 2, amount: (3 * ROWS * (ROWS - 1)) / 2 + 0.5 * ROWS };

async function contentsOf(file: string): Promise<{ n: number; ids: number; amount: number }> {
  const [contents] = await readDatasetFile(
    file,
    'select count(*) n, sum(id) ids, sum(amount) amount from rows',
  );
  return contents as { n: number; ids: number; amount: number };
}

/** What the catalogue error body of DESIGN.md §3 must look like for a refused write. */
function expectStoreRefusal(res: HttpResult<any>, what: string): void {
  expect({
    what,
    status: res.status,
    code: res.body?.error?.code,
    retryAfter: res.headers.get('retry-after'),
    requestId: res.body?.error?.request_id,
  }).toEqual({
    what,
    status: 503,
    code: 'store_unavailable',
    retryAfter: '5',
    requestId: res.headers.get('x-request-id'),
  });
  expect(res.text).not.toMatch(/\n\s+at |SQLITE_|stack/);
}

/**
 * The shim's control file beside `dataDir`: `arm` starts a new count (k 0 reports every write, k > 0 fails the k-th
 * with `errno`, k < 0 lets all through) and returns its generation; `lines` are what the shim reported for one.
 */
class FaultControl {
  readonly file: string;
  private generation = 0;

  constructor(dataDir: string) {
    this.file = join(dataDir, '..', `${dataDir.split('/').pop()}.fault-control`);
  }

  arm(k: number, errno = 'EIO'): number {
    this.generation++;
    writeFileSync(`${this.file}.tmp`, `${this.generation} ${k} ${errno}\n`);
    renameSync(`${this.file}.tmp`, this.file);
    return this.generation;
  }

  /**
   * The shim's lines for one armed generation. The shim writes a line before the daemon answers, yet the answer can
   * reach this process before the pipe carrying the line is read; so the output is read once it has stopped growing.
   */
  async lines(appliance: Appliance, generation: number): Promise<string[]> {
    const output = () => appliance.daemon!.output();
    const deadline = Date.now() + 2000;
    for (let seen = -1; output().length !== seen && Date.now() < deadline;) {
      seen = output().length;
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    return output()
      .split('\n')
      .filter((line) => line.startsWith(`fault-shim: gen ${generation} `));
  }
}

afterAll(() => {
  if (builtShim) rmSync(dirname(builtShim), { recursive: true, force: true });
});

(hasCompiler ? describe : describe.skip)('an I/O error at the k-th write of an ingest, for every k', () => {
  let dataDir = '';
  let datasetsDir = '';
  let control: FaultControl;
  let appliance: Appliance;
  let connectorId = '';
  const arm = (k: number, errno?: string): number => control.arm(k, errno);
  const shimLines = (gen: number): Promise<string[]> => control.lines(appliance, gen);

  const connect = (name: string) =>
    appliance.call('POST', '/v1/data/connect', {
      connection_type: 'file',
      dataset_name: name,
      connection_id: connectorId,
    });
  const listedIds = async (): Promise<Set<string>> => {
    const listed = await appliance.ok('GET', '/v1/data?all_versions=true');
    return new Set((listed.body.datasets as { id: string }[]).map((d) => d.id));
  };
  /** Descriptors the daemon still holds on a dataset build's partial file. */
  const partialDescriptors = (): string[] => {
    const dir = `/proc/${appliance.daemon!.child.pid}/fd`;
    return readdirSync(dir)
      .map((fd) => {
        try {
          return readlinkSync(join(dir, fd));
        } catch {
          return '';
        }
      })
      .filter(
        (target) =>
          target.startsWith(datasetsDir) &&
          /\.sqlite\.partial/.test(target) &&
          !target.includes('.summaries.'),
      );
  };

  beforeAll(async () => {
    dataDir = realpathSync(makeTempDir('ds-write-faults-'));
    datasetsDir = join(dataDir, 'datasets');
    control = new FaultControl(dataDir);
    arm(-1);
    appliance = new Appliance(dataDir, {
      LD_PRELOAD: shim(),
      FAULT_SHIM_DIR: datasetsDir,
      // Summaries are built in the background after an ingest: their writes would shift the count.
      FAULT_SHIM_EXCLUDE: '.summaries.',
      FAULT_SHIM_CONTROL: control.file,
      ENGINE_POOL_SIZE: '0',
    });
    await appliance.start();
    await appliance.signup('write-faults@example.test');
    const connector = await appliance.ok('POST', '/v1/connectors', {
      name: 'faults',
      connector_type: 'file',
      config: { file_type: 'csv', content: CSV },
    });
    connectorId = connector.body.id as string;
  });
  afterAll(async () => {
    await appliance?.kill();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    if (control) rmSync(control.file, { force: true });
  });

  it('ends every ingest failed and gone, or ready and whole; the daemon serves and ingests again', async () => {
    // Counting: one clean ingest, every write-like call on the datasets dir reported.
    const counting = arm(0);
    const clean = await connect('counted');
    expect([clean.status, clean.body.status]).toEqual([200, 'ready']);
    const ops = (await shimLines(counting)).map((line) => line.split(' ')[5]);
    const writes = ops.length;
    const byOp = ops.reduce<Record<string, number>>((acc, op) => ({ ...acc, [op]: (acc[op] ?? 0) + 1 }), {});
    expect(writes).toBeGreaterThan(0);
    await appliance.ok('DELETE', `/v1/data/${clean.body.dataset_id as string}`);

    const seed = seedOfThisRun();
    const random = seededRandom(seed);
    const chosen = new Set<number>();
    for (let k = 1; k <= writes; k++) {
      if (k <= EVERY_K_UP_TO || k > writes - FAULT_TAIL) chosen.add(k);
    }
    const middle = writes - FAULT_TAIL - EVERY_K_UP_TO;
    for (let i = 0; i < FAULT_SAMPLE && middle > 0; i++) {
      chosen.add(EVERY_K_UP_TO + 1 + Math.floor(random() * middle));
    }
    const ks = [...chosen].sort((a, b) => a - b);
    process.stdout.write(
      `write faults: ${writes} write-like calls per ingest of ${ROWS} rows (${JSON.stringify(byOp)}); ` +
        `trying ${ks.length} k: ${ks.length === writes ? 'every one' : `1..${EVERY_K_UP_TO}, the last ${FAULT_TAIL} and a sample (seed ${seed})`}\n`,
    );

    const integrity = new IntegrityChecker();
    const outcomes: Record<string, number> = {};
    const messages = new Set<string>();
    const began = Date.now();
    for (const k of ks) {
      const errno = k % 2 === 0 ? 'ENOSPC' : 'EIO';
      const gen = arm(k, errno);
      const res = await connect(`k${k}`);
      const injected = (await shimLines(gen)).find((line) => line.includes(' failed '));
      const when = `k=${k} ${errno} (${injected?.split(' ').slice(4, 6).join(' ') ?? 'not reached'})`;
      // Failed (200 `failed`, or 507 for a full disk) and nothing listed; or ready with every row.
      const outcome =
        res.status === 200 ? (res.body.status as string) : `${res.status} ${res.body?.error?.code as string}`;
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      if (outcome !== 'ready') messages.add(String(res.body.message ?? res.body.error?.message));
      expect({ when, outcome }).toEqual({
        when,
        outcome: expect.stringMatching(/^(failed|ready|507 insufficient_storage)$/),
      });
      const listed = await listedIds();
      if (outcome === 'ready') {
        const id = res.body.dataset_id as string;
        expect({ when, contents: await contentsOf(join(datasetsDir, `${id}.duckdb`)) }).toEqual({
          when,
          contents: EXPECTED,
        });
        await appliance.ok('DELETE', `/v1/data/${id}`);
        listed.delete(id);
      } else {
        expect({ when, listed: [...listed] }).toEqual({ when, listed: [] });
      }
      // No partial file, no version file the catalogue does not list, no descriptor left on a partial file.
      const files = readdirSync(datasetsDir).filter((f) => !f.includes('.summaries.'));
      expect({ when, files: files.filter((f) => !listed.has(f.slice(0, f.indexOf('.')))) }).toEqual({
        when,
        files: [],
      });
      expect({ when, descriptors: partialDescriptors() }).toEqual({ when, descriptors: [] });
      // The daemon's database and every dataset file are sound.
      expect({
        when,
        problems: integrity.problems(dataDir, (path) => !path.includes('.summaries.')),
      }).toEqual({ when, problems: [] });
      expect((await appliance.call('GET', '/v1/health')).status).toBe(200);

      // The same file ingests again, whole.
      arm(-1);
      const again = await connect(`again${k}`);
      expect({ when, status: again.status, outcome: again.body.status }).toEqual({
        when,
        status: 200,
        outcome: 'ready',
      });
      const id = again.body.dataset_id as string;
      expect({ when, contents: await contentsOf(join(datasetsDir, `${id}.duckdb`)) }).toEqual({
        when,
        contents: EXPECTED,
      });
      await appliance.ok('DELETE', `/v1/data/${id}`);
    }
    process.stdout.write(
      `write faults: ${ks.length} faulted ingests in ${((Date.now() - began) / 1000).toFixed(0)} s: ` +
        `${JSON.stringify(outcomes)}; ${integrity.checked} integrity checks; messages: ${JSON.stringify([...messages])}\n`,
    );
  });
});

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string): string[] {
  return existsSync(dir)
    ? readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
        .sort()
    : [];
}

(hasCompiler ? describe : describe.skip)('an upload whose write the disk fails', () => {
  let dataDir = '';
  let importDir = '';
  let control: FaultControl;
  let appliance: Appliance;
  const body = Buffer.alloc(1024 * 1024);
  const random = seededRandom(7);
  for (let i = 0; i < body.length; i++) body[i] = Math.floor(random() * 256);
  const sha256 = createHash('sha256').update(body).digest('hex');

  const upload = async (form: 'raw' | 'multipart'): Promise<HttpResult<any>> => {
    if (form === 'raw') {
      return httpRequest(appliance.url, 'POST', '/v1/connectors/uploads', {
        token: appliance.key,
        rawBody: body,
        headers: { 'content-type': 'application/octet-stream', 'x-filename': 'faulty.csv' },
      });
    }
    const multipart = new FormData();
    multipart.append('file', new Blob([body]), 'faulty.csv');
    const response = await fetch(`${appliance.url}/v1/connectors/uploads`, {
      method: 'POST',
      body: multipart,
      headers: { authorization: `Bearer ${appliance.key}` },
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: JSON.parse(text), text };
  };

  beforeAll(async () => {
    dataDir = realpathSync(makeTempDir('ds-upload-faults-'));
    importDir = join(dataDir, 'imports');
    control = new FaultControl(dataDir);
    control.arm(-1);
    appliance = new Appliance(dataDir, {
      LD_PRELOAD: shim(),
      FAULT_SHIM_DIR: importDir,
      FAULT_SHIM_CONTROL: control.file,
      ENGINE_POOL_SIZE: '0',
    });
    await appliance.start();
    await appliance.signup('upload-faults@example.test');
  });
  afterAll(async () => {
    await appliance?.kill();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    if (control) rmSync(control.file, { force: true });
  });

  it('answers 503 store_unavailable for EIO and EROFS, 507 for ENOSPC and EDQUOT, keeps no part, takes the next', async () => {
    const counting = control.arm(0);
    const clean = await upload('raw');
    expect([clean.status, clean.body.sha256]).toEqual([201, sha256]);
    const writes = (await control.lines(appliance, counting)).length;
    expect(writes).toBeGreaterThan(2);
    const kept = filesUnder(importDir);

    const answers: Record<string, string> = {};
    for (const errno of ['EIO', 'EROFS', 'ENOSPC', 'EDQUOT']) {
      for (const form of ['raw', 'multipart'] as const) {
        // The first write, and one in the middle of the stream.
        for (const k of [1, Math.ceil(writes / 2)]) {
          const when = `${form} upload, ${errno} at write ${k} of ${writes}`;
          const gen = control.arm(k, errno);
          const res = await upload(form);
          const injected = (await control.lines(appliance, gen)).some((line) => line.includes(' failed '));
          const full = errno === 'ENOSPC' || errno === 'EDQUOT';
          expect({
            when,
            injected,
            status: res.status,
            code: res.body?.error?.code,
            retryAfter: res.headers.get('retry-after'),
            requestId: res.body?.error?.request_id,
          }).toEqual({
            when,
            injected: true,
            status: full ? 507 : 503,
            code: full ? 'insufficient_storage' : 'store_unavailable',
            retryAfter: full ? null : '5',
            requestId: res.headers.get('x-request-id'),
          });
          // Neither a stack, nor the errno's words, nor a path of the appliance.
          expect({ when, text: res.text }).not.toEqual({
            when,
            text: expect.stringMatching(
              /\n\s+at |stack|EIO|EROFS|ENOSPC|EDQUOT|i\/o error|\/imports|\/orgs\//i,
            ),
          });
          // The partial file is removed: only what was acknowledged is in the import dir.
          expect({ when, files: filesUnder(importDir) }).toEqual({ when, files: kept });
          answers[`${res.status} ${res.body?.error?.code as string}`] = res.body?.error?.message as string;
        }
      }
    }
    process.stdout.write(`upload faults: ${writes} writes an upload; answers ${JSON.stringify(answers)}\n`);

    // The disk takes writes again: the next upload is stored whole.
    control.arm(-1);
    for (const form of ['raw', 'multipart'] as const) {
      const stored = await upload(form);
      expect([form, stored.status, stored.body.sha256]).toEqual([form, 201, sha256]);
      expect(readFileSync(join(importDir, stored.body.file_path as string)).equals(body)).toBe(true);
    }
    expect((await appliance.call('GET', '/v1/health')).status).toBe(200);
  });
});

const immutable = immutableFlagHolds();

(immutable ? describe : describe.skip)('the main database made read-only under the running daemon', () => {
  let dataDir = '';
  let database = '';
  let appliance: Appliance;
  let file: ImmutableDatabase | undefined;

  beforeAll(async () => {
    dataDir = realpathSync(makeTempDir('ds-readonly-db-'));
    database = join(dataDir, 'service.sqlite');
    file = new ImmutableDatabase(database);
    appliance = new Appliance(dataDir, { ENGINE_POOL_SIZE: '0' });
    await appliance.start();
    await appliance.signup('read-only-db@example.test');
  });
  afterAll(async () => {
    file?.clear();
    await appliance?.kill();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const readiness = async () => {
    const res = await appliance.call('GET', '/v1/ready');
    return [res.status, res.body.status, res.body.store?.status, res.body.storage?.status];
  };

  it('refuses writes with 503 store_unavailable, is not ready, keeps reading, and writes again once writable', async () => {
    const datasetId = await appliance.stockDataset('sku,stock\nsku0,500\nsku1,20');
    const before = await appliance.ok('POST', '/v1/api-keys', { label: 'before' });
    expect(existsSync(`${database}-wal`)).toBe(true);
    expect(await readiness()).toEqual([200, 'ready', 'ok', 'ok']);

    file!.set(true);
    const refusedKey = await appliance.call('POST', '/v1/api-keys', { label: 'while read-only' });
    expectStoreRefusal(refusedKey, 'POST /v1/api-keys');
    expectStoreRefusal(
      await appliance.call('DELETE', `/v1/api-keys/${before.body.id as string}`),
      'DELETE /v1/api-keys/{id}',
    );
    expectStoreRefusal(
      await appliance.call('POST', '/v1/connectors', {
        name: 'ro',
        connector_type: 'file',
        config: { file_type: 'csv', content: 'a,b\n1,2' },
      }),
      'POST /v1/connectors',
    );
    const filesBefore = readdirSync(join(dataDir, 'datasets')).sort();
    const dataset = await appliance.call('GET', `/v1/data/${datasetId}`);
    const connect = await appliance.call('POST', '/v1/data/connect', {
      connection_type: 'file',
      dataset_name: 'stock',
      connection_id: dataset.body.connection_id,
    });
    expectStoreRefusal(connect, 'POST /v1/data/connect');
    // The new version's file was written before its catalogue row failed: it is removed, not left unlisted.
    expect(
      readdirSync(join(dataDir, 'datasets'))
        .filter((f) => !f.includes('.summaries.'))
        .sort(),
    ).toEqual(filesBefore.filter((f) => !f.includes('.summaries.')));

    // Reads keep answering.
    for (const path of ['/v1/me', '/v1/api-keys', '/v1/data', `/v1/data/${datasetId}`, '/v1/connectors']) {
      const res = await appliance.call('GET', path);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
    }
    const query = await appliance.call('POST', '/v1/query/sql', {
      dataset_id: datasetId,
      sql: 'select sum(stock) as total from stock',
    });
    expect([query.status, query.body.rows]).toEqual([200, [{ total: 520 }]]);
    expect((await appliance.call('GET', '/v1/health')).status).toBe(200);
    // The refused writes ended the standing answer of the last write probe: readiness writes again and fails.
    expect(await readiness()).toEqual([503, 'not_ready', 'unavailable', 'ok']);
    await waitUntil(
      () => appliance.daemon!.output().includes('"event":"store_not_writable"'),
      2000,
      'store_not_writable logged',
    );

    // Writable again: readiness and the next write succeed, without a restart.
    file!.set(false);
    expect(await readiness()).toEqual([200, 'ready', 'ok', 'ok']);
    const after = await appliance.call('POST', '/v1/api-keys', { label: 'after' });
    expect(after.status).toBe(201);
    expect(appliance.isUp).toBe(true);
    expect(new IntegrityChecker().problems(dataDir)).toEqual([]);

    // What was acknowledged holds across a clean restart, and what was refused does not exist.
    appliance.daemon!.child.kill('SIGTERM');
    expect(await appliance.daemon!.exited).toBe(0);
    expect(new IntegrityChecker().problems(dataDir)).toEqual([]);
    await appliance.start();
    const labels = ((await appliance.ok('GET', '/v1/api-keys')).body.keys as { label: string }[]).map(
      (k) => k.label,
    );
    expect(labels).toEqual(expect.arrayContaining(['before', 'after']));
    expect(labels).not.toContain('while read-only');
    expect((await appliance.ok('GET', `/v1/data/${datasetId}`)).body.rows).toBe(2);
  });
});
