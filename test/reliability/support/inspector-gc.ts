import { createWriteStream } from 'node:fs';

/** What the daemon's own `process.memoryUsage()` and V8's heap spaces say, in KiB, after a full collection. */
export interface MemoryFigures {
  readonly rss: number;
  readonly heapUsed: number;
  readonly external: number;
  readonly arrayBuffers: number;
  /** Used bytes per V8 heap space (old_space, code_space, large_object_space, …), in KiB. */
  readonly spaces: Readonly<Record<string, number>>;
}

type Send = (method: string, params?: object) => Promise<{ result?: { result?: { value?: unknown } } }>;

/** One session with another Node process's inspector (started with `--inspect=127.0.0.1:0`, which prints the address). */
async function withInspector<T>(
  processOutput: string,
  work: (
    send: Send,
    onEvent: (listener: (message: { method?: string; params?: any }) => void) => void,
  ) => Promise<T>,
): Promise<T> {
  const address = /Debugger listening on (ws:\/\/\S+)/.exec(processOutput)?.[1];
  if (address === undefined)
    throw new Error('the process has no inspector listening (start it with --inspect)');
  const socket = new WebSocket(address);
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve());
    socket.addEventListener('error', () => reject(new Error(`cannot reach the inspector at ${address}`)));
  });
  try {
    let lastId = 0;
    const send: Send = (method, params) =>
      new Promise((resolve) => {
        const id = ++lastId;
        const onMessage = (event: MessageEvent): void => {
          const message = JSON.parse(String(event.data)) as {
            id?: number;
            result?: { result?: { value?: unknown } };
          };
          if (message.id !== id) return;
          socket.removeEventListener('message', onMessage);
          resolve(message);
        };
        socket.addEventListener('message', onMessage);
        socket.send(JSON.stringify({ id, method, params }));
      });
    const onEvent = (listener: (message: { method?: string; params?: any }) => void): void =>
      socket.addEventListener('message', (event: MessageEvent) => listener(JSON.parse(String(event.data))));
    return await work(send, onEvent);
  } finally {
    socket.close();
  }
}

/**
 * A full garbage collection in another Node process, through its inspector. Node never collects while idle, so the
 * RSS of a daemon that has just answered thousands of requests holds their garbage until its next allocation burst;
 * a collection tells what it still holds apart from what it merely has not freed yet. Answers the memory figures
 * the process gives of itself right after.
 */
export async function collectGarbageIn(processOutput: string): Promise<MemoryFigures> {
  return withInspector(processOutput, async (send) => {
    await send('HeapProfiler.enable');
    await send('HeapProfiler.collectGarbage');
    const expression =
      'JSON.stringify({ memory: process.memoryUsage(), ' +
      'spaces: process.mainModule.require("v8").getHeapSpaceStatistics().map((s) => [s.space_name, s.space_used_size]) })';
    const answer = await send('Runtime.evaluate', { expression, returnByValue: true });
    const { memory, spaces } = JSON.parse(String(answer.result?.result?.value)) as {
      memory: NodeJS.MemoryUsage;
      spaces: [string, number][];
    };
    const kib = (bytes: number) => Math.round(bytes / 1024);
    return {
      rss: kib(memory.rss),
      heapUsed: kib(memory.heapUsed),
      external: kib(memory.external),
      arrayBuffers: kib(memory.arrayBuffers),
      spaces: Object.fromEntries(spaces.map(([name, used]) => [name, kib(used)])),
    };
  });
}

/** Writes a heap snapshot of another Node process to `file` (for Chrome DevTools' Memory tab, or a script). */
export async function takeHeapSnapshotIn(processOutput: string, file: string): Promise<void> {
  await withInspector(processOutput, async (send, onEvent) => {
    const out = createWriteStream(file);
    onEvent((message) => {
      if (message.method === 'HeapProfiler.addHeapSnapshotChunk') out.write(message.params.chunk as string);
    });
    await send('HeapProfiler.enable');
    await send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
    await new Promise<void>((resolve, reject) =>
      out.end((error?: Error | null) => (error ? reject(error) : resolve())),
    );
  });
}
