/** Lists that come in pages (`{items, nextCursor}`), followed as the iteration goes. */

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** Every item, page after page: the next page is asked for only when the loop reaches it. */
export async function* allPages<T, U = T>(
  page: (cursor: string | undefined) => Promise<Page<T>>,
  wrap: (item: T) => U = (item) => item as unknown as U,
): AsyncGenerator<U> {
  let cursor: string | undefined;
  do {
    const got = await page(cursor);
    for (const item of got.items) yield wrap(item);
    cursor = got.nextCursor ?? undefined;
  } while (cursor);
}
