import { type Db, mailOutbox } from '@tasklane/db';
import { and, eq, inArray, lt, sql } from 'drizzle-orm';
import { rowsOf } from '../sql';

export async function insertMail(db: Db, mail: { kind: string; recipient: string; data: Record<string, unknown> }): Promise<void> {
  await db.insert(mailOutbox).values(mail);
}

export interface ClaimedMail {
  id: number;
  kind: string;
  recipient: string;
  data: Record<string, unknown>;
  /** Attempts so far, this one included. */
  attempts: number;
}

/**
 * Leases up to `limit` due messages for `leaseMs`, counting the attempt. SKIP LOCKED lets every
 * instance claim at once without two sending the same message; the lease (not a transaction) holds
 * it while it is sent, so no transaction stays open during SMTP.
 */
export async function claimDue(db: Db, limit: number, leaseMs: number): Promise<ClaimedMail[]> {
  const result = await db.execute(sql`
    update ${mailOutbox} as m
    set leased_until = now() + ${`${leaseMs} milliseconds`}::interval, attempts = m.attempts + 1, updated_at = now()
    where m.id in (
      select due.id from ${mailOutbox} as due
      where due.state = 'PENDING' and due.next_attempt_at <= now()
        and (due.leased_until is null or due.leased_until < now())
      order by due.next_attempt_at, due.id
      limit ${limit}
      for update skip locked
    )
    returning m.id::text as id, m.kind, m.recipient, m.data, m.attempts`);
  return rowsOf<{ id: string; kind: string; recipient: string; data: Record<string, unknown> | string; attempts: number }>(result).map((row) => ({
    id: Number(row.id),
    kind: row.kind,
    recipient: row.recipient,
    data: typeof row.data === 'string' ? (JSON.parse(row.data) as Record<string, unknown>) : row.data,
    attempts: Number(row.attempts),
  }));
}

/** A sent message leaves the outbox (it holds an address and nothing worth keeping). */
export async function deleteSent(db: Db, id: number): Promise<void> {
  await db.delete(mailOutbox).where(eq(mailOutbox.id, id));
}

/** A failed attempt: due again at `retryAt`, or given up (FAILED, kept with its error) when null. */
export async function markFailed(db: Db, id: number, error: string, retryAt: Date | null): Promise<void> {
  await db
    .update(mailOutbox)
    .set({ state: retryAt ? 'PENDING' : 'FAILED', lastError: error.slice(0, 1000), leasedUntil: null, ...(retryAt ? { nextAttemptAt: retryAt } : {}), updatedAt: new Date() })
    .where(eq(mailOutbox.id, id));
}

/** Messages given up before `before`, at most `batch` at a time; returns how many went. */
export async function pruneFailed(db: Db, before: Date, batch = 1000): Promise<number> {
  const deleted = await db
    .delete(mailOutbox)
    .where(
      inArray(
        mailOutbox.id,
        db.select({ id: mailOutbox.id }).from(mailOutbox).where(and(eq(mailOutbox.state, 'FAILED'), lt(mailOutbox.updatedAt, before))).limit(batch),
      ),
    )
    .returning({ id: mailOutbox.id });
  return deleted.length;
}
