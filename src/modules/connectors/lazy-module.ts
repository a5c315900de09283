/**
 * A module loaded on the first call, once: connector SDKs weigh tens of megabytes of resident memory and most
 * deployments use one or two of them, so none is loaded at start-up. A failed load is retried on the next call.
 */
export function loadOnFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => {
    loaded ??= load().catch((error: unknown) => {
      loaded = undefined;
      throw error;
    });
    return loaded;
  };
}
