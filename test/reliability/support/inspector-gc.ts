/**
 * A full garbage collection in another Node process, through its inspector (started with
 * `--inspect=127.0.0.1:0`, which prints the address on stderr). Node never collects while idle, so the RSS of a
 * daemon that has just answered thousands of requests holds their garbage until its next allocation burst; a
 * collection tells what it still holds apart from what it merely has not freed yet.
 */
export async function collectGarbageIn(processOutput: string): Promise<void> {
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
    const call = (method: string): Promise<void> =>
      new Promise((resolve) => {
        const id = ++lastId;
        const onMessage = (event: MessageEvent): void => {
          if ((JSON.parse(String(event.data)) as { id?: number }).id !== id) return;
          socket.removeEventListener('message', onMessage);
          resolve();
        };
        socket.addEventListener('message', onMessage);
        socket.send(JSON.stringify({ id, method }));
      });
    await call('HeapProfiler.enable');
    await call('HeapProfiler.collectGarbage');
  } finally {
    socket.close();
  }
}
