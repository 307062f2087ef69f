import { createHash } from 'node:crypto';
import type { Db } from '@tasklane/db';
import { inTransaction } from '../../platform/ambient-transaction';
import { DomainError } from '../../platform/errors';
import * as store from './store';

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export interface IdempotentRequest {
  userId: string;
  /** The `Idempotency-Key` header, if sent. */
  key: string | undefined;
  /** The operation (procedure path): a key reused on another operation is a different request. */
  operation: string;
  /** The parsed input, path parameters included. */
  input: unknown;
}

export interface IdempotentResult<T> {
  status: number;
  body: T;
  /** True when the body is the stored response of an earlier request with this key. */
  replayed: boolean;
}

const requestHash = (operation: string, input: unknown) => createHash('sha256').update(JSON.stringify([operation, input])).digest('hex');

/**
 * `Idempotency-Key` for creates: the key is claimed, the create runs and its response is stored,
 * all in one transaction, so a retry either replays the stored response or (if the first attempt
 * failed and rolled back) runs afresh; it never creates twice.
 */
export function createIdempotencyService(db: Db) {
  return {
    async run<T>(request: IdempotentRequest, status: number, create: () => Promise<T>): Promise<IdempotentResult<T>> {
      if (request.key === undefined) return { status, body: await create(), replayed: false };
      const key = request.key;
      if (!KEY_PATTERN.test(key)) {
        throw new DomainError('BAD_REQUEST', 'Idempotency-Key must be 1–255 visible ASCII characters', 'INVALID_IDEMPOTENCY_KEY');
      }
      const hash = requestHash(request.operation, request.input);
      return inTransaction(db, async (tx) => {
        await store.deleteExpired(tx, request.userId);
        if (!(await store.claim(tx, { userId: request.userId, key, requestHash: hash }))) {
          const earlier = await store.find(tx, request.userId, key);
          if (!earlier || earlier.requestHash !== hash) {
            throw new DomainError(
              'CONFLICT',
              'This Idempotency-Key was already used for a different request in the last 24 hours; use a new key',
              'IDEMPOTENCY_KEY_REUSED',
            );
          }
          return { status: earlier.status, body: JSON.parse(earlier.body) as T, replayed: true };
        }
        const body = await create();
        await store.saveResponse(tx, request.userId, key, { status, body: JSON.stringify(body) });
        return { status, body, replayed: false };
      });
    },
  };
}

export type IdempotencyService = ReturnType<typeof createIdempotencyService>;
