import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { AppError } from '../errors';
import { isTimeOrderedId } from '../time-ordered-id';

// A cursor is opaque to clients; inside, it names the page's last item by the list's sort key.
export const MAX_PAGE_LIMIT = 500;
export const DEFAULT_PAGE_LIMIT = 50;

export class CursorPageQuery {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_LIMIT)
  limit?: number;

  @IsOptional()
  @IsString()
  @MaxLength(256)
  cursor?: string;
}

export interface CursorPage<T> {
  readonly items: T[];
  readonly nextCursor: string | null;
}

export function rowsToFetch(limit: number): number {
  return limit + 1;
}

export function pageOf<T>(rows: readonly T[], limit: number, cursorOf: (last: T) => string): CursorPage<T> {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > limit && last !== undefined ? cursorOf(last) : null };
}

export function encodeCursor(parts: readonly string[]): string {
  return Buffer.from(JSON.stringify(parts)).toString('base64url');
}

export function invalidCursor(): AppError {
  return new AppError('invalid_cursor', undefined, [
    { field: 'cursor', problem: 'is not a cursor returned by this list' },
  ]);
}

/** A cursor that is the last item's `timeOrderedId(prefix, …)`; anything else is a 422 on `cursor`. */
export function timeOrderedCursor(cursor: string, prefix: string): string {
  if (!isTimeOrderedId(prefix, cursor)) throw invalidCursor();
  return cursor;
}

export function decodeCursor(cursor: string, partCount: number): string[] {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (!Array.isArray(parts) || parts.length !== partCount || !parts.every((p) => typeof p === 'string')) {
    throw invalidCursor();
  }
  return parts;
}
