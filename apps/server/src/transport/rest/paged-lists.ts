import { announceNextPage, type Page } from '../../platform/paging';
import type { ResponseMeta } from '../../platform/response-meta';

/**
 * A paged list procedure (meta `paged`, transport/trpc/paged-list.ts) answers the page
 * `{ items, nextCursor }`; REST answers what the interface documents instead: the bare array of
 * items, with the next page announced in `Link: <…>; rel="next"`. Called from trpc-to-openapi's
 * `responseMeta`, which runs after the procedure and before the adapter writes the body with
 * `JSON.stringify(data)`: the Link goes with the other response headers, and the page gets a
 * `toJSON` (not enumerable, so nothing else sees it) that makes that one stringify write the items
 * alone, with no second serialisation of the page. The page is this request's own object: tRPC's
 * output check (zod) built it.
 */
export function answerAsRestList(page: Page<unknown>, response: ResponseMeta, requestUrl: string): void {
  announceNextPage(response, requestUrl, page.nextCursor);
  Object.defineProperty(page, 'toJSON', { value: () => page.items, enumerable: false, configurable: true });
}

type MediaType = { schema?: unknown };
type SuccessResponse = { content?: Record<string, MediaType> };

/**
 * The 200 of a paged list in the OpenAPI document: the generator describes the procedure's page
 * object, REST sends its `items` (above), so the schema becomes that property's, the array of items.
 * The `Link` header is documented from the meta's `headers`, as for every route.
 */
export function documentAsRestList(success: SuccessResponse): void {
  const media = success.content?.['application/json'];
  const page = media?.schema as { properties?: { items?: unknown } } | undefined;
  if (!media || !page?.properties?.items) throw new Error('A paged list must answer an object with `items`');
  media.schema = page.properties.items;
}
