/** One page of a list: its items and the cursor of the next page (null or absent on the last). */
export interface PageShape {
  readonly next_cursor?: string | null;
}

/**
 * What a list method returns. Awaited, it gives the first page as the service answered it; iterated with
 * `for await`, it gives every item across all pages, following `next_cursor`.
 */
export class PagedList<Page extends object, Item> implements PromiseLike<Page>, AsyncIterable<Item> {
  private first: Promise<Page> | undefined;

  constructor(
    private readonly fetchPage: (cursor: string | undefined) => Promise<Page>,
    private readonly itemsOf: (page: Page) => readonly Item[],
  ) {}

  then<A = Page, B = never>(
    onFulfilled?: ((page: Page) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.firstPage().then(onFulfilled, onRejected);
  }

  catch<B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<Page | B> {
    return this.firstPage().catch(onRejected);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Item> {
    let page = await this.firstPage();
    for (;;) {
      yield* this.itemsOf(page);
      const cursor = (page as PageShape).next_cursor;
      if (!cursor) return;
      page = await this.fetchPage(cursor);
    }
  }

  /** Every item of every page, in order. */
  async toArray(): Promise<Item[]> {
    const items: Item[] = [];
    for await (const item of this) items.push(item);
    return items;
  }

  private firstPage(): Promise<Page> {
    this.first ??= this.fetchPage(undefined);
    return this.first;
  }
}
