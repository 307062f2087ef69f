import type { AnyProcedure, AnyRouter, TRPCRouterRecord } from '@trpc/server';

type PathsOfRecord<Record, Prefix extends string> = {
  [Key in keyof Record & string]: Record[Key] extends AnyProcedure
    ? `${Prefix}${Key}`
    : Record[Key] extends AnyRouter
      ? PathsOfRecord<Record[Key]['_def']['record'], `${Prefix}${Key}.`>
      : Record[Key] extends TRPCRouterRecord
        ? PathsOfRecord<Record[Key], `${Prefix}${Key}.`>
        : never;
}[keyof Record & string];

/**
 * Every procedure's dotted path (`auth.tokens.list`) of a router, as a type: from the router's
 * record, the public shape tRPC gives nested routers (`router({ tasks: tasksRouter })`).
 */
export type ProcedurePathOf<Router extends AnyRouter> = PathsOfRecord<Router['_def']['record'], ''>;
