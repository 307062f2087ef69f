import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Db } from '@tasklane/db';
import { isId, newId } from '../../platform/ids';
import * as store from './store';
import type { CodePurpose } from './store';

/**
 * Single-use codes: a row (id, purpose, user, expiry) and, for the user, `<id>.<HMAC of id and
 * purpose>` under a key derived from the server's secret. The database never holds a usable code,
 * and a code can be rebuilt from its row only with the secret (the reset email is rendered so,
 * when it is sent). Using a code deletes its row: once only, even when two requests race.
 */
export function createOneTimeCodes(secret: string) {
  const key = createHash('sha256').update(`tasklane one-time codes\0${secret}`).digest();
  const signature = (id: string, purpose: CodePurpose) => createHmac('sha256', key).update(`${purpose}\0${id}`).digest('base64url');

  /** The id a well-formed, genuinely signed code names; undefined for anything else. */
  function idOf(code: string, purpose: CodePurpose): string | undefined {
    const [id, given, extra] = code.split('.');
    if (!id || !given || extra !== undefined || !isId(id)) return undefined;
    const expected = Buffer.from(signature(id, purpose));
    const actual = Buffer.from(given);
    return actual.length === expected.length && timingSafeEqual(actual, expected) ? id : undefined;
  }

  return {
    /** The code the user gets for a row's id. */
    codeFor: (id: string, purpose: CodePurpose) => `${id}.${signature(id, purpose)}`,

    /** Writes a code for the user valid for `ttlMs`; returns its id (pass `db` a transaction to tie it to more). */
    async issue(db: Db, purpose: CodePurpose, userId: string, ttlMs: number): Promise<string> {
      const id = newId();
      await store.insertOneTimeCode(db, { id, purpose, userId, expiresAt: new Date(Date.now() + ttlMs) });
      return id;
    },

    /** The user of a valid, unused, unexpired code, without using it. */
    async peek(db: Db, code: string, purpose: CodePurpose): Promise<string | undefined> {
      const id = idOf(code, purpose);
      return id ? (await store.findOneTimeCode(db, id, purpose))?.userId : undefined;
    },

    /** Uses the code: its user, once; undefined when it is invalid, used or expired. */
    async consume(db: Db, code: string, purpose: CodePurpose): Promise<string | undefined> {
      const id = idOf(code, purpose);
      return id ? (await store.consumeOneTimeCode(db, id, purpose))?.userId : undefined;
    },
  };
}

export type OneTimeCodes = ReturnType<typeof createOneTimeCodes>;
