import { pageOf } from '@tasklane/schemas';
import type { inferProcedureBuilderResolverOptions } from '@trpc/server';
import type { z } from 'zod';
import type { Page } from '../../platform/paging';
import { protectedProcedure, type ProcedureMeta } from './init';

type Caller = inferProcedureBuilderResolverOptions<typeof protectedProcedure>['ctx'];

export interface PagedListOptions<Input extends z.ZodType, Item extends z.ZodType> {
  /** The REST route's meta; `paged` and the `Link` header are added here, since every paged list has them. */
  meta: Omit<ProcedureMeta, 'headers' | 'paged'>;
  input: Input;
  item: Item;
  /** The service call that reads one page. */
  list: (ctx: Caller, input: z.output<Input>) => Promise<Page<z.input<Item>>>;
}

/**
 * The one procedure of a paged list, answering the page `{ items, nextCursor }` (zod checks it as
 * every other answer). A tRPC caller sees no response headers, so the cursor travels in the body;
 * REST keeps its documented form, the bare array with the next page in `Link: rel="next"`, which
 * the REST edge makes from this page because `meta.paged` marks it (transport/rest/paged-lists.ts:
 * the body, and the OpenAPI document's 200). Spread the result into a router.
 */
export function pagedList<const Name extends string, Input extends z.ZodType, Item extends z.ZodType>(
  name: Name,
  { meta, input, item, list }: PagedListOptions<Input, Item>,
) {
  const procedure = protectedProcedure
    .meta({ ...meta, headers: ['Link'], paged: true })
    .input(input)
    .output(pageOf(item))
    // tRPC types a generic parser's result as a conditional type it cannot resolve here; it is the
    // parsed `input`, i.e. z.output<Input>.
    .query(({ ctx, input }) => list(ctx, input as z.output<Input>));
  return { [name]: procedure } as { [K in Name]: typeof procedure };
}
