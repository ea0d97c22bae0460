/**
 * The page to show after an item left the list (approved or rejected): if it
 * was the only item on a page above 1, go back one page; otherwise stay (and
 * reload the list).
 */
export function pageAfterRemoval(page: number, itemsOnPage: number): number {
  return itemsOnPage <= 1 && page > 1 ? page - 1 : page;
}

/** Pagination controls appear only when there is more than one page. */
export function showPagination(totalPages: unknown): boolean {
  return typeof totalPages === 'number' && totalPages > 1;
}
