import { DaemonProcess, spawnDaemon, waitForStart } from './daemon-process';
import { httpRequest, HttpResult } from './test-app';

/**
 * One appliance data dir run as the built daemon in a real process, started again and again and SIGKILLed between
 * (the crash tests of the reliability suite). `generation` counts the starts, so a caller can tell which daemon
 * life something happened in.
 */
export class Appliance {
  daemon?: DaemonProcess;
  url = '';
  key = '';
  generation = 0;
  /** When the current daemon was spawned (ms since the epoch). */
  startedAt = 0;
  /** Set from the kill on: a call failing from then on is the kill's doing, even before the exit is reported. */
  private killed = false;

  constructor(
    readonly dataDir: string,
    readonly env: Record<string, string>,
  ) {}

  async start(): Promise<void> {
    this.startedAt = Date.now();
    this.killed = false;
    // Counted at the spawn: the new daemon may send before its start-up line is read.
    this.generation++;
    this.daemon = spawnDaemon({ ...this.env, SERVICE_PORT: '0', SERVICE_DATA_DIR: this.dataDir });
    this.url = await waitForStart(this.daemon, 90_000);
  }

  get isUp(): boolean {
    return (
      !this.killed &&
      !!this.daemon &&
      this.daemon.child.exitCode === null &&
      this.daemon.child.signalCode === null
    );
  }

  async kill(): Promise<void> {
    if (!this.isUp) return;
    this.killed = true;
    this.daemon!.child.kill('SIGKILL');
    await this.daemon!.exited;
  }

  call<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
    token?: string,
  ) {
    return httpRequest<T>(this.url, method, path, { body, token: token ?? (this.key || undefined), headers });
  }

  async ok<T = any>(method: string, path: string, body?: unknown): Promise<HttpResult<T>> {
    const res = await this.call<T>(method, path, body);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
    return res;
  }

  /** A private dataset `stock` of the key's org from a file connector holding `csv`; returns the dataset id. */
  async stockDataset(csv: string): Promise<string> {
    const connector = await this.ok('POST', '/v1/connectors', {
      name: 'stock',
      connector_type: 'file',
      config: { file_type: 'csv', content: csv },
    });
    const dataset = await this.ok('POST', '/v1/data/connect', {
      connection_type: 'file',
      dataset_name: 'stock',
      connection_id: connector.body.id,
      visibility: 'private',
    });
    return dataset.body.dataset_id as string;
  }

  /** Signs up the first user and keeps its API key for the calls that follow. */
  async signup(email: string): Promise<void> {
    const res = await this.call('POST', '/auth/signup', {
      email,
      password: 'correct horse battery staple',
      name: 'Crash test',
    });
    if (res.status !== 201) throw new Error(`signup: ${res.status} ${res.text}`);
    this.key = res.body.api_key.raw_key;
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
