import type { FastifyInstance } from 'fastify';
import { DomainError } from '../../platform/errors';
import { isDatabaseUnavailable } from '../../platform/db-errors';
import { type CalendarFeedService, FEED_PATH_PREFIX } from '../../resources/calendar-feed/service';
import { errorBody } from './rest-errors';

/**
 * `GET`/`HEAD /ical/<token>.ics`: a calendar app's subscription, which sends no header of ours, so
 * the address is the credential (the request log shows it as `/ical/[redacted].ics`). A plain
 * Fastify route: it answers text/calendar, not JSON.
 */
export function registerCalendarFeedRoute(app: FastifyInstance, feeds: CalendarFeedService): void {
  app.get(`${FEED_PATH_PREFIX}:file`, async (request, reply) => {
    const file = (request.params as { file: string }).file;
    const token = file.endsWith('.ics') ? file.slice(0, -'.ics'.length) : '';
    try {
      const body = await feeds.calendar(token);
      return reply
        .code(200)
        .header('cache-control', 'private, no-cache')
        .header('x-robots-tag', 'noindex')
        .type('text/calendar; charset=utf-8')
        .send(body);
    } catch (error) {
      if (error instanceof DomainError && error.code === 'NOT_FOUND') return reply.code(404).header('cache-control', 'no-store').send(errorBody(404, 'Calendar feed not found'));
      if (isDatabaseUnavailable(error)) return reply.code(503).send(errorBody(503, 'The database is unavailable; retry shortly', 'DATABASE_UNAVAILABLE'));
      throw error;
    }
  });
}
