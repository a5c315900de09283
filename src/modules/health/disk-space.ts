import { statfs } from 'node:fs/promises';

export interface StorageStatus {
  readonly status: 'ok' | 'degraded';
  readonly free_bytes: number;
  readonly min_free_bytes: number;
}

/** The answer is public, so it names no path. */
export async function storageStatus(path: string, minFreeBytes: number): Promise<StorageStatus> {
  const stats = await statfs(path);
  const free = stats.bavail * stats.bsize;
  return {
    status: free < minFreeBytes ? 'degraded' : 'ok',
    free_bytes: free,
    min_free_bytes: minFreeBytes,
  };
}
