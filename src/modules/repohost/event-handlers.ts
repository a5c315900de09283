export type EventHandler = (payload: unknown) => Promise<void> | void;

function requireObject(payload: unknown): Record<string, unknown> {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    throw new Error('the payload is not a JSON object');
  }
  return payload as Record<string, unknown>;
}

function requireRepository(payload: unknown): void {
  const repository = requireObject(payload).repository;
  if (
    repository === null ||
    typeof repository !== 'object' ||
    typeof (repository as { full_name?: unknown }).full_name !== 'string'
  ) {
    throw new Error('the payload has no repository.full_name');
  }
}

/**
 * Events that will drive the repository pipeline check its fields, so a malformed delivery is recorded as failed with
 * why.
 */
export const EVENT_HANDLERS: Readonly<Record<string, EventHandler>> = {
  ping: (payload) => void requireObject(payload),
  push: requireRepository,
  pull_request: requireRepository,
  check_suite: requireRepository,
  check_run: requireRepository,
  workflow_run: requireRepository,
};

export function handlerFor(event: string): EventHandler | undefined {
  return EVENT_HANDLERS[event];
}
