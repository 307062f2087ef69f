import { pageOf } from '@tasklane/schemas';
import type { inferProcedureBuilderResolverOptions } from '@trpc/server';
import { z } from 'zod';
import { announceNextPage, type Page } from '../../platform/paging';
import { protectedProcedure, type ProcedureMeta } from './init';

type Caller = inferProcedureBuilderResolverOptions<typeof protectedProcedure>['ctx'];

export interface PagedListOptions<Input extends z.ZodType, Item extends z.ZodType> {
  /** The REST route's meta; the `Link` header is added here, since every paged list sets it. */
  meta: Omit<ProcedureMeta, 'headers'>;
  input: Input;
  item: Item;
  /** The service call that reads one page. */
  list: (ctx: Caller, input: z.output<Input>) => Promise<Page<z.input<Item>>>;
}

/**
 * `schema` for the OpenAPI document and the types, without zod's check of each answer at run time
 * (tRPC calls the schema's `parse`, here the identity). A page's items are the store's SELECT of
 * exactly the documented fields, and the check rebuilt every one of them: 4 % of the server's CPU
 * per page of 50 tasks (docs/performance.md). What guards the shape instead: every REST response a
 * test receives is checked against the document (test/support/openapi-conformance.ts). The
 * tRPC-only twin keeps the check.
 */
function documentedOnly<Schema extends z.ZodType>(schema: Schema): Schema {
  return Object.assign(schema, { parse: (value: unknown) => value }) as Schema;
}

/**
 * The two procedures of one paged list, from one service call: `name` for REST (the body is the
 * array, the next page is announced in `Link: rel="next"`) and the tRPC-only `namePage` twin for the
 * SDK, with `{ items, nextCursor }` in the body because a tRPC client sees no response headers.
 * Spread the result into a router.
 */
export function pagedList<const Name extends string, Input extends z.ZodType, Item extends z.ZodType>(
  name: Name,
  { meta, input, item, list }: PagedListOptions<Input, Item>,
) {
  // tRPC types a generic parser's result as a conditional type it cannot resolve here; it is the
  // parsed `input`, i.e. z.output<Input>.
  const read = (ctx: Caller, parsed: unknown) => list(ctx, parsed as z.output<Input>);
  const rest = protectedProcedure
    .meta({ ...meta, headers: ['Link'] })
    .input(input)
    .output(documentedOnly(z.array(item)))
    .query(async ({ ctx, input }) => {
      const page = await read(ctx, input);
      announceNextPage(ctx.response, ctx.url, page.nextCursor);
      return page.items;
    });
  const twin = protectedProcedure
    .input(input)
    .output(pageOf(item))
    .query(({ ctx, input }) => read(ctx, input));
  return { [name]: rest, [`${name}Page`]: twin } as { [K in Name]: typeof rest } & { [K in `${Name}Page`]: typeof twin };
}
