import { randomBytes } from 'node:crypto';
import { type PGlite, type QueryOptions, type Results, type Transaction, parse, protocol } from '@electric-sql/pglite';

/*
 * PGlite's query() parses and plans its statement on every call; it has no statement cache, and SQL
 * EXECUTE cannot take bind parameters. This gives every statement text a name the first time it is
 * run: parsed once, its plan kept by the engine, and from then on only bound and run, through
 * PGlite's protocol API, the way query() itself talks to the engine. On the service's task read that
 * is 0.22–0.27 ms a call instead of 0.69–1.01 ms (bench/src/pglite-statements.mjs). The service's
 * statement texts are built from fixed fragments with parameters, so their number is bounded; past
 * MAX_STATEMENTS new texts go through query() as before.
 */

const MAX_STATEMENTS = 1_000;

export type QueryListener = (milliseconds: number) => void;

/** Where a driver wrapper finds the current listener (read per query, so it can be set after opening). */
export interface QueryTiming {
  listener: QueryListener | undefined;
}
/** The statement's plan no longer fits (its result type changed) or the statement is gone (DEALLOCATE). */
const STALE_STATEMENT = new Set(['0A000', '26000']);
const { serialize } = protocol;

interface NamedStatement {
  name: string;
  /** The parameters' type oids, which choose each value's serializer as query() does. */
  parameterTypes: number[];
}

/**
 * `client` with query() and transactions' query() running named statements, each reported to
 * `timing`'s listener when it settles; `pending()` counts the statements and transactions issued
 * and not yet settled (one runs, the others wait for the engine).
 */
export function withNamedStatements(client: PGlite, timing: QueryTiming = { listener: undefined }): { client: PGlite; pending: () => number } {
  let pending = 0;
  /** Counts `work` while it is pending and reports its time to the listener. */
  async function tracked<T>(work: () => Promise<T>, inTransaction = false): Promise<T> {
    const listener = timing.listener;
    const issuedAt = listener ? performance.now() : 0;
    // A transaction's statements run on the connection it already holds (and counts).
    if (!inTransaction) pending += 1;
    try {
      return await work();
    } finally {
      if (!inTransaction) pending -= 1;
      listener?.(performance.now() - issuedAt);
    }
  }
  const statements = new Map<string, NamedStatement>();
  // Names never repeat, even across two wrappers of one client or after a stale one is dropped.
  const prefix = `tasklane_${randomBytes(4).toString('hex')}_`;
  let namesGiven = 0;
  // Every batch ends with Sync, so a failed statement leaves the session ready for the next one;
  // PGlite throws the database error once the whole batch has been processed.
  const send = (...messages: Uint8Array[]) => client.execProtocolStream(Buffer.concat(messages), { syncToFs: false });

  // What query() takes beyond rows and parsers (declared parameter types, notices, COPY blobs) stays with query().
  const named = (text: string, options?: QueryOptions) =>
    !options?.blob && !options?.paramTypes && !options?.onNotice && (statements.has(text) || statements.size < MAX_STATEMENTS);

  async function statementFor(text: string): Promise<NamedStatement> {
    const known = statements.get(text);
    if (known) return known;
    const name = `${prefix}${namesGiven++}`;
    const described = await send(
      serialize.parse({ name, text, types: [] }),
      serialize.describe({ type: 'S', name }),
      serialize.sync(),
    );
    const statement = { name, parameterTypes: parse.parseDescribeStatementResults(described) };
    statements.set(text, statement);
    return statement;
  }

  /** What query() does, with the statement named: under the query lock, written through to disk unless in a transaction. */
  const run = <T>(text: string, parameters: unknown[] = [], options: QueryOptions | undefined, inTransaction: boolean) =>
    client._runExclusiveQuery(async (): Promise<Results<T>> => {
      for (let attempt = 1; ; attempt++) {
        const statement = await statementFor(text);
        try {
          return await bindAndRun<T>(statement, parameters, options, inTransaction);
        } catch (error) {
          if (!STALE_STATEMENT.has((error as { code?: string }).code ?? '')) throw error;
          // Parsed again under a new name next time; run again now only where the failure did not
          // abort a transaction.
          statements.delete(text);
          if (inTransaction || attempt > 1) throw error;
        }
      }
    });

  async function bindAndRun<T>(statement: NamedStatement, parameters: unknown[], options: QueryOptions | undefined, inTransaction: boolean) {
    const values = parameters.map((value, index) => {
      if (value === null || value === undefined) return null;
      const type = statement.parameterTypes[index]!;
      const serializer = options?.serializers?.[type] ?? client.serializers[type];
      return serializer ? serializer(value) : String(value);
    });
    const messages = await send(
      serialize.bind({ statement: statement.name, values }),
      serialize.describe({ type: 'P' }),
      serialize.execute({}),
      serialize.sync(),
    );
    if (!inTransaction) await client.syncToFs();
    return parse.parseResults(messages, client.parsers, options)[0] as Results<T>;
  }

  const inTransaction = (tx: Transaction): Transaction => {
    const query = tx.query.bind(tx);
    return Object.assign(tx, {
      query: async <T>(text: string, parameters?: unknown[], options?: QueryOptions): Promise<Results<T>> => {
        if (!named(text, options)) return tracked(() => query<T>(text, parameters, options), true);
        if (tx.closed) throw new Error('Transaction is closed');
        return tracked(() => run<T>(text, parameters, options, true), true);
      },
    });
  };

  // Made once: drizzle reads `query` for every statement it runs.
  const query = async <T>(text: string, parameters?: unknown[], options?: QueryOptions): Promise<Results<T>> => {
    if (!named(text, options)) return tracked(() => client.query<T>(text, parameters, options));
    await client._checkReady();
    return tracked(() => client._runExclusiveTransaction(() => run<T>(text, parameters, options, false)));
  };
  // A transaction holds the one connection from BEGIN to COMMIT: pending as a whole, its statements reported one by one.
  const transaction = <T>(callback: (tx: Transaction) => Promise<T>) => {
    pending += 1;
    return client.transaction((tx) => callback(inTransaction(tx))).finally(() => {
      pending -= 1;
    });
  };

  const proxied = new Proxy(client, {
    get(target, property) {
      if (property === 'query') return query;
      if (property === 'transaction') return transaction;
      // The client as the receiver: PGlite's getters read private fields, which the proxy has not.
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { client: proxied, pending: () => pending };
}
