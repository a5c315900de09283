import { AddressInfo, createServer, Server, Socket } from 'node:net';

/**
 * A loopback stand-in for a Neo4j server that speaks enough Bolt for the official neo4j-driver: the handshake
 * (it picks Bolt 5.4), chunked messages, PackStream values, HELLO/LOGON with basic auth (FAILURE on a wrong
 * password), RUN/PULL with RECORDs streamed in PULL-sized batches, BEGIN/COMMIT/ROLLBACK, RESET after a FAILURE,
 * GOODBYE. It answers the queries the driver sends (labels, relationship types, counts, the nodes of a label) from a
 * small in-memory graph, and canned results for other queries. There is no Neo4j server on this machine and none
 * can be installed offline; this checks the driver against the real protocol, not the server's Cypher.
 */

export interface StandInNode {
  readonly labels: readonly string[];
  readonly properties: Readonly<Record<string, unknown>>;
}

export interface StandInRelationship {
  readonly type: string;
  readonly from: number;
  readonly to: number;
}

export interface CannedResult {
  readonly fields: readonly string[];
  readonly rows: readonly (readonly unknown[])[];
  /** A query that writes: in a READ session the stand-in answers the server's access-mode FAILURE. */
  readonly writes?: boolean;
}

export interface Neo4jStandInOptions {
  readonly username: string;
  readonly password: string;
  readonly version?: string;
  readonly databases?: readonly string[];
  readonly nodes?: readonly StandInNode[];
  readonly relationships?: readonly StandInRelationship[];
  /** Other queries, by their text (whitespace collapsed). */
  readonly queries?: Readonly<Record<string, CannedResult>>;
}

/** One RUN as the stand-in received it. */
export interface ReceivedRun {
  readonly query: string;
  readonly mode: string;
  readonly db?: string;
}

export interface Neo4jStandIn {
  readonly port: number;
  readonly url: string;
  /** Every RUN received, in order. */
  readonly runs: ReceivedRun[];
  /** How many TCP connections were accepted. */
  readonly connections: () => number;
  close(): Promise<void>;
}

/** A graph node inside a RECORD (PackStream structure 0x4E). */
class NodeValue {
  constructor(
    readonly id: number,
    readonly node: StandInNode,
  ) {}
}

class Struct {
  constructor(
    readonly tag: number,
    readonly fields: unknown[],
  ) {}
}

// ---- PackStream ----

function packInt(value: bigint | number, out: number[]): void {
  const n = BigInt(value);
  if (n >= -16n && n <= 127n) out.push(Number(n) & 0xff);
  else if (n >= -128n && n <= 127n) out.push(0xc8, Number(n) & 0xff);
  else if (n >= -32768n && n <= 32767n) out.push(0xc9, ...bytes(2, (b) => b.writeInt16BE(Number(n))));
  else if (n >= -2147483648n && n <= 2147483647n)
    out.push(0xca, ...bytes(4, (b) => b.writeInt32BE(Number(n))));
  else out.push(0xcb, ...bytes(8, (b) => b.writeBigInt64BE(n)));
}

function bytes(size: number, write: (buffer: Buffer) => void): number[] {
  const buffer = Buffer.alloc(size);
  write(buffer);
  return [...buffer];
}

function header(size: number, tiny: number, base: number, out: number[]): void {
  if (size < 16) out.push(tiny + size);
  else if (size < 0x100) out.push(base, size);
  else if (size < 0x10000) out.push(base + 1, ...bytes(2, (b) => b.writeUInt16BE(size)));
  else out.push(base + 2, ...bytes(4, (b) => b.writeUInt32BE(size)));
}

function pack(value: unknown, out: number[]): void {
  if (value === null || value === undefined) out.push(0xc0);
  else if (value === true) out.push(0xc3);
  else if (value === false) out.push(0xc2);
  else if (typeof value === 'bigint') packInt(value, out);
  else if (typeof value === 'number') {
    if (Number.isInteger(value)) packInt(value, out);
    else out.push(0xc1, ...bytes(8, (b) => b.writeDoubleBE(value)));
  } else if (typeof value === 'string') {
    const text = Buffer.from(value, 'utf8');
    header(text.length, 0x80, 0xd0, out);
    out.push(...text);
  } else if (Array.isArray(value)) {
    header(value.length, 0x90, 0xd4, out);
    for (const item of value) pack(item, out);
  } else if (value instanceof NodeValue) {
    const { id, node } = value;
    pack(new Struct(0x4e, [id, [...node.labels], node.properties, `4:standin:${id}`]), out);
  } else if (value instanceof Struct) {
    out.push(0xb0 + value.fields.length, value.tag);
    for (const field of value.fields) pack(field, out);
  } else if (typeof value === 'object') {
    const entries = Object.entries(value);
    header(entries.length, 0xa0, 0xd8, out);
    for (const [key, item] of entries) {
      pack(key, out);
      pack(item, out);
    }
  } else throw new Error(`the stand-in cannot pack ${typeof value}`);
}

class Unpacker {
  private at = 0;

  constructor(private readonly buffer: Buffer) {}

  private size(marker: number, tiny: number, base: number): number {
    if (marker >= tiny && marker < tiny + 16) return marker - tiny;
    const width = [1, 2, 4][marker - base];
    const size = this.buffer.readUIntBE(this.at, width);
    this.at += width;
    return size;
  }

  value(): unknown {
    const marker = this.buffer[this.at++];
    if (marker < 0x80) return marker;
    if (marker >= 0xf0) return marker - 0x100;
    if (marker === 0xc0) return null;
    if (marker === 0xc2) return false;
    if (marker === 0xc3) return true;
    if (marker === 0xc1) return this.read(8, (at) => this.buffer.readDoubleBE(at));
    if (marker === 0xc8) return this.read(1, (at) => this.buffer.readInt8(at));
    if (marker === 0xc9) return this.read(2, (at) => this.buffer.readInt16BE(at));
    if (marker === 0xca) return this.read(4, (at) => this.buffer.readInt32BE(at));
    if (marker === 0xcb) return this.read(8, (at) => Number(this.buffer.readBigInt64BE(at)));
    if ((marker >= 0x80 && marker < 0x90) || (marker >= 0xd0 && marker <= 0xd2)) {
      const size = this.size(marker, 0x80, 0xd0);
      return this.read(size, (at) => this.buffer.toString('utf8', at, at + size));
    }
    if ((marker >= 0x90 && marker < 0xa0) || (marker >= 0xd4 && marker <= 0xd6)) {
      const size = this.size(marker, 0x90, 0xd4);
      return Array.from({ length: size }, () => this.value());
    }
    if ((marker >= 0xa0 && marker < 0xb0) || (marker >= 0xd8 && marker <= 0xda)) {
      const size = this.size(marker, 0xa0, 0xd8);
      const map: Record<string, unknown> = {};
      for (let i = 0; i < size; i += 1) map[String(this.value())] = this.value();
      return map;
    }
    if (marker >= 0xb0 && marker < 0xc0) {
      const tag = this.buffer[this.at++];
      return new Struct(
        tag,
        Array.from({ length: marker - 0xb0 }, () => this.value()),
      );
    }
    throw new Error(`the stand-in cannot unpack marker 0x${marker.toString(16)}`);
  }

  private read<T>(size: number, get: (at: number) => T): T {
    const value = get(this.at);
    this.at += size;
    return value;
  }
}

// ---- Bolt messages ----

const HELLO = 0x01;
const GOODBYE = 0x02;
const RESET = 0x0f;
const RUN = 0x10;
const BEGIN = 0x11;
const COMMIT = 0x12;
const ROLLBACK = 0x13;
const DISCARD = 0x2f;
const PULL = 0x3f;
const TELEMETRY = 0x54;
const LOGON = 0x6a;
const LOGOFF = 0x6b;
const SUCCESS = 0x70;
const RECORD = 0x71;
const IGNORED = 0x7e;
const FAILURE = 0x7f;

function frame(message: Struct): Buffer {
  const body: number[] = [];
  pack(message, body);
  const chunks: Buffer[] = [];
  for (let at = 0; at < body.length; at += 0xffff) {
    const part = Buffer.from(body.slice(at, at + 0xffff));
    const size = Buffer.alloc(2);
    size.writeUInt16BE(part.length);
    chunks.push(size, part);
  }
  chunks.push(Buffer.alloc(2));
  return Buffer.concat(chunks);
}

type Answer = { fields: readonly string[]; rows: unknown[][] } | { code: string; message: string };

function failure(code: string, message: string): Answer {
  return { code, message };
}

class Session {
  private received = Buffer.alloc(0);
  private shaken = false;
  private loggedOn = false;
  private failed = false;
  private pending: unknown[][] = [];
  private mode = 'w';
  private db: string | undefined;
  private inTransaction = false;

  constructor(
    private readonly socket: Socket,
    private readonly options: Neo4jStandInOptions,
    private readonly runs: ReceivedRun[],
  ) {
    socket.on('data', (data) => this.receive(data));
    socket.on('error', () => undefined);
  }

  private send(tag: number, ...fields: unknown[]): void {
    this.socket.write(frame(new Struct(tag, fields)));
  }

  private receive(data: Buffer): void {
    this.received = Buffer.concat([this.received, data]);
    if (!this.shaken) {
      if (this.received.length < 20) return;
      if (this.received.readUInt32BE(0) !== 0x6060b017) {
        this.socket.destroy();
        return;
      }
      this.received = this.received.subarray(20);
      this.shaken = true;
      // Bolt 5.4: minor in the third byte, major in the fourth.
      this.socket.write(Buffer.from([0, 0, 4, 5]));
    }
    for (;;) {
      const message = this.nextMessage();
      if (message === undefined) return;
      this.handle(message);
    }
  }

  /** One whole message (its chunks up to the 0x0000 end marker), or undefined until it has all arrived. */
  private nextMessage(): Struct | undefined {
    const parts: Buffer[] = [];
    let at = 0;
    for (;;) {
      if (this.received.length < at + 2) return undefined;
      const size = this.received.readUInt16BE(at);
      at += 2;
      if (size === 0) {
        if (parts.length === 0) continue; // a NOOP keep-alive chunk
        this.received = this.received.subarray(at);
        return new Unpacker(Buffer.concat(parts)).value() as Struct;
      }
      if (this.received.length < at + size) return undefined;
      parts.push(this.received.subarray(at, at + size));
      at += size;
    }
  }

  private handle(message: Struct): void {
    const [first, second, third] = message.fields as [unknown, unknown, unknown];
    if (message.tag === GOODBYE) {
      this.socket.end();
      return;
    }
    if (message.tag === RESET) {
      this.failed = false;
      this.inTransaction = false;
      this.pending = [];
      this.send(SUCCESS, {});
      return;
    }
    if (this.failed) {
      this.send(IGNORED);
      return;
    }
    switch (message.tag) {
      case HELLO:
        this.send(SUCCESS, {
          server: `Neo4j/${this.options.version ?? '5.26.0'}`,
          connection_id: 'bolt-standin',
          hints: {},
        });
        return;
      case LOGON: {
        const auth = first as Record<string, unknown>;
        if (auth.principal === this.options.username && auth.credentials === this.options.password) {
          this.loggedOn = true;
          this.send(SUCCESS, {});
        } else {
          this.fail(
            'Neo.ClientError.Security.Unauthorized',
            'The client is unauthorized due to authentication failure.',
          );
        }
        return;
      }
      case LOGOFF:
        this.loggedOn = false;
        this.send(SUCCESS, {});
        return;
      case TELEMETRY:
        this.send(SUCCESS, {});
        return;
      case BEGIN: {
        const extra = first as Record<string, unknown>;
        this.mode = extra.mode === 'r' ? 'r' : 'w';
        this.db = extra.db as string | undefined;
        this.inTransaction = true;
        if (!this.databaseExists()) return;
        this.send(SUCCESS, {});
        return;
      }
      case COMMIT:
        this.inTransaction = false;
        this.send(SUCCESS, { bookmark: 'standin:1' });
        return;
      case ROLLBACK:
        this.inTransaction = false;
        this.send(SUCCESS, {});
        return;
      case RUN:
        this.run(String(first), second as Record<string, unknown>, third as Record<string, unknown>);
        return;
      case PULL:
        this.pull(Number((first as Record<string, unknown>).n ?? -1));
        return;
      case DISCARD:
        this.pending = [];
        this.send(SUCCESS, { has_more: false });
        return;
      default:
        this.fail(
          'Neo.ClientError.Request.Invalid',
          `The stand-in does not handle message 0x${message.tag.toString(16)}.`,
        );
    }
  }

  private fail(code: string, message: string): void {
    this.failed = true;
    this.send(FAILURE, { code, message });
  }

  private databaseExists(): boolean {
    const databases = this.options.databases ?? ['neo4j'];
    if (this.db === undefined || databases.includes(this.db)) return true;
    this.fail(
      'Neo.ClientError.Database.DatabaseNotFound',
      `Database does not exist. Database name: '${this.db}'.`,
    );
    return false;
  }

  private run(
    query: string,
    _params: Record<string, unknown>,
    extra: Record<string, unknown> | undefined,
  ): void {
    if (!this.loggedOn) {
      this.fail('Neo.ClientError.Security.Unauthorized', 'Not logged on.');
      return;
    }
    // An auto-commit RUN carries mode and db; inside BEGIN they came with BEGIN.
    if (!this.inTransaction) {
      this.mode = extra?.mode === 'r' ? 'r' : 'w';
      this.db = extra?.db as string | undefined;
    }
    const text = query.replace(/\s+/g, ' ').trim();
    this.runs.push({ query: text, mode: this.mode, ...(this.db ? { db: this.db } : {}) });
    if (!this.databaseExists()) return;
    const answer = this.answer(text);
    if ('code' in answer) {
      this.fail(answer.code, answer.message);
      return;
    }
    this.pending = answer.rows;
    this.send(SUCCESS, { fields: [...answer.fields], t_first: 0 });
  }

  private pull(n: number): void {
    const batch = n < 0 ? this.pending : this.pending.slice(0, n);
    this.pending = this.pending.slice(batch.length);
    for (const row of batch) this.send(RECORD, row);
    if (this.pending.length > 0) this.send(SUCCESS, { has_more: true });
    else this.send(SUCCESS, { type: this.mode === 'r' ? 'r' : 'rw', t_last: 0, db: this.db ?? 'neo4j' });
  }

  private answer(text: string): Answer {
    const nodes = this.options.nodes ?? [];
    const relationships = this.options.relationships ?? [];
    const unquote = (name: string): string => name.replace(/``/g, '`');
    if (text === 'RETURN 1 AS ok') return { fields: ['ok'], rows: [[1]] };
    if (text === 'CALL db.labels() YIELD label RETURN label') {
      const labels = [...new Set(nodes.flatMap((node) => node.labels))];
      return { fields: ['label'], rows: labels.map((label) => [label]) };
    }
    if (text === 'CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType') {
      const types = [...new Set(relationships.map((r) => r.type))];
      return { fields: ['relationshipType'], rows: types.map((type) => [type]) };
    }
    let match = /^MATCH \(n:`((?:[^`]|``)+)`\) RETURN count\(n\) AS count$/.exec(text);
    if (match) {
      const label = unquote(match[1]);
      return { fields: ['count'], rows: [[nodes.filter((node) => node.labels.includes(label)).length]] };
    }
    match = /^MATCH \(\)-\[r:`((?:[^`]|``)+)`\]->\(\) RETURN count\(r\) AS count$/.exec(text);
    if (match) {
      const type = unquote(match[1]);
      return { fields: ['count'], rows: [[relationships.filter((r) => r.type === type).length]] };
    }
    match = /^MATCH \(n:`((?:[^`]|``)+)`\) RETURN n$/.exec(text);
    if (match) {
      const label = unquote(match[1]);
      const rows = nodes.flatMap((node, id) =>
        node.labels.includes(label) ? [[new NodeValue(id, node)]] : [],
      );
      return { fields: ['n'], rows };
    }
    const canned = this.options.queries?.[text];
    if (canned) {
      if (canned.writes && this.mode === 'r') {
        return failure('Neo.ClientError.Statement.AccessMode', 'Writing in read access mode not allowed.');
      }
      return { fields: canned.fields, rows: canned.rows.map((row) => [...row]) };
    }
    return failure('Neo.ClientError.Statement.SyntaxError', `The stand-in does not know the query: ${text}`);
  }
}

export async function startNeo4jStandIn(options: Neo4jStandInOptions): Promise<Neo4jStandIn> {
  const runs: ReceivedRun[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    new Session(socket, options, runs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `bolt://127.0.0.1:${port}`,
    runs,
    connections: () => connections,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
