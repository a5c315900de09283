import { Command, InvalidArgumentError } from 'commander';
import { type FormatOptions, withFormat } from './output';
import type { PagedList } from './sdk';

export interface PagingOptions extends FormatOptions {
  readonly limit?: number;
  readonly cursor?: string;
  readonly all?: boolean;
}

interface CursorPage {
  readonly next_cursor?: string | null;
}

function pageSize(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('give a whole number (1 or more)');
  return n;
}

export function withPaging(command: Command): Command {
  return withFormat(command)
    .option('--limit <n>', "items per page (the service's default when absent)", pageSize)
    .option('--cursor <cursor>', 'start after this cursor (the next_cursor of an earlier page)')
    .option('--all', 'follow next_cursor and list every item, not one page');
}

/** `--all` prints one document of the same shape (so `--format json` matches the schema); page notes go to stderr. */
export async function pageToPrint<
  Field extends string,
  Page extends CursorPage & Record<Field, unknown>,
  Item,
>(list: PagedList<Page, Item>, itemsField: Field, options: PagingOptions): Promise<Page> {
  const first = await list;
  if (options.all) return { ...first, [itemsField]: await list.toArray(), next_cursor: null };
  if (first.next_cursor)
    process.stderr.write(
      `decisionctl: more ${itemsField} follow: add --cursor ${first.next_cursor}, or --all for every page\n`,
    );
  return first;
}
