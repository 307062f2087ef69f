import { isoFromTimestamptz } from '@tasklane/db';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../../src/platform/sql';
import { openTestDatabase } from '../../support/harness';

// The service reads timestamps as the database's own text (both drivers hand it over untouched) and
// rewrites it into the API's ISO text itself: here against the real engine's output, in the zone the
// connections use (UTC) and in others, for the years where a lenient parser goes wrong.
const INSTANTS = [
  '2026-11-22T07:44:01.123Z',
  '2026-11-22T07:44:01.120Z',
  '2026-11-22T07:44:01.100Z',
  '2026-11-22T07:44:01.000Z',
  '0001-01-01T00:00:00.000Z',
  '0005-03-01T12:30:00.500Z',
  '0099-12-31T23:59:59.999Z',
  '1969-12-31T23:59:59.999Z',
  '9999-12-31T23:59:59.990Z',
];

describe('timestamps read from the database', () => {
  let opened: Awaited<ReturnType<typeof openTestDatabase>>;
  beforeAll(async () => {
    opened = await openTestDatabase();
  });
  afterAll(() => opened.drop());

  const textsIn = (zone: string) =>
    opened.database.db.transaction(async (tx) => {
      await tx.execute(sql`select set_config('TimeZone', ${zone}, true)`);
      const values = sql.join(INSTANTS.map((instant) => sql`(${instant}::timestamptz(3))`), sql`, `);
      return rowsOf<{ at: string }>(await tx.execute(sql`select at from (values ${values}) as instants(at)`)).map((row) => row.at);
    });

  it('are UTC text on the service’s own connections, and read exactly', async () => {
    const [row] = rowsOf<{ zone: string; at: string }>(await opened.database.db.execute(sql`select current_setting('TimeZone') as zone, '2026-11-22T07:44:01.12Z'::timestamptz(3) as at`));
    expect(row).toEqual({ zone: 'UTC', at: '2026-11-22 07:44:01.12+00' });
    expect((await textsIn('UTC')).map(isoFromTimestamptz)).toEqual(INSTANTS);
  });

  it('read exactly in zones with other offsets too', async () => {
    for (const zone of ['Asia/Kolkata', 'America/St_Johns', 'Etc/GMT+12', 'Pacific/Kiritimati']) {
      const texts = await textsIn(zone);
      expect(texts.some((text) => text.endsWith('+00'))).toBe(false);
      expect(texts.map(isoFromTimestamptz)).toEqual(INSTANTS);
    }
  });
});
