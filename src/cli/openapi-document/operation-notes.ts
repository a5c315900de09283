import { CursorPageQuery, MAX_PAGE_LIMIT } from '../../common/http/cursor-page';
import { RouteFacts } from './route-facts';

// Derived from the route itself, so the text cannot drift from the guards.
export const PAGING_NOTE =
  `Paged by cursor: \`limit\` (1 to ${MAX_PAGE_LIMIT}) sets the page size; pass the answer's \`next_cursor\` ` +
  'as `cursor` for the next page. `next_cursor` is null on the last page.';

export const IDEMPOTENCY_NOTE =
  'Safe to retry with an `Idempotency-Key` header: the same key and body create once and replay the first answer.';

export function roleNote(role: string): string {
  return `Needs the \`${role}\` role or higher (else 403 \`insufficient_role\`).`;
}

export function entitlementNote(entitlement: string): string {
  return `Needs the \`${entitlement}\` entitlement of the license (else 403 \`not_entitled\`).`;
}

function isPaged(route: RouteFacts): boolean {
  const query = route.queryType;
  return query !== undefined && (query === CursorPageQuery || query.prototype instanceof CursorPageQuery);
}

export function operationDescription(own: string | undefined, route: RouteFacts): string | undefined {
  const parts = [
    own,
    isPaged(route) ? PAGING_NOTE : undefined,
    route.isIdempotent ? IDEMPOTENCY_NOTE : undefined,
    route.role === undefined ? undefined : roleNote(route.role),
    route.entitlement === undefined ? undefined : entitlementNote(route.entitlement),
  ].filter((part): part is string => part !== undefined && part !== '');
  return parts.length === 0 ? undefined : parts.join('\n\n');
}
