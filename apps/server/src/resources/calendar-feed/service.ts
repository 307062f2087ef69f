import { randomBytes } from 'node:crypto';
import type { Db } from '@tasklane/db';
import type { CalendarFeedCreated, CalendarFeedStatus } from '@tasklane/schemas';
import { ICalCalendar, ICalEventStatus } from 'ical-generator';
import { notFound } from '../../platform/errors';
import { digestOf } from '../access-tokens/service';
import * as store from './store';

/** Where a feed is served: `<publicUrl>/ical/<token>.ics`. */
export const FEED_PATH_PREFIX = '/ical/';
/** How far back the feed reaches, and the most tasks it holds: calendar apps poll it for ever. */
const FEED_PAST_DAYS = 90;
const FEED_MAX_TASKS = 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** A task due at midnight UTC was given a day, not a time (the web app's date picker): an all-day event. */
const isWholeDay = (date: Date) => date.getUTCHours() === 0 && date.getUTCMinutes() === 0 && date.getUTCSeconds() === 0 && date.getUTCMilliseconds() === 0;

export function createCalendarFeedService(db: Db, publicUrl: string) {
  const base = publicUrl.replace(/\/+$/, '');
  return {
    /** A new secret address, replacing any earlier one; only its SHA-256 is kept. */
    async create(userId: string): Promise<CalendarFeedCreated> {
      const token = randomBytes(32).toString('base64url');
      await store.saveFeed(db, userId, digestOf(token), new Date());
      return { url: `${base}${FEED_PATH_PREFIX}${token}.ics` };
    },

    async status(userId: string): Promise<CalendarFeedStatus> {
      const feed = await store.findFeedOf(db, userId);
      return { active: feed !== undefined, createdAt: feed ? feed.createdAt.toISOString() : null };
    },

    /** Ends the feed: its address answers 404 from now on. */
    async remove(userId: string): Promise<{ message: string }> {
      if (!(await store.deleteFeed(db, userId))) throw notFound('Calendar feed');
      return { message: 'Calendar feed ended' };
    },

    /**
     * The RFC 5545 calendar of the address's token: one VEVENT per task (Google Calendar and others
     * ignore VTODO), its UID the task's id so an update changes the event rather than adding one, its
     * SEQUENCE growing with each write (seconds since creation). 404 for an unknown or ended address.
     */
    async calendar(token: string, now = new Date()): Promise<string> {
      const feed = /^[A-Za-z0-9_-]{43}$/.test(token) ? await store.findFeedByDigest(db, digestOf(token)) : undefined;
      if (!feed) throw notFound('Calendar feed');
      const rows = await store.feedTasks(db, feed.userId, new Date(now.getTime() - FEED_PAST_DAYS * DAY_MS), FEED_MAX_TASKS);
      const calendar = new ICalCalendar({ name: 'Tasklane: my tasks', prodId: { company: 'Tasklane', product: 'Tasklane', language: 'EN' }, ttl: 15 * 60 });
      const host = new URL(base).host;
      for (const task of rows) {
        const due = task.dueDate!;
        const link = `${base}/tasks/${task.key}`;
        calendar.createEvent({
          id: `task-${task.id}@${host}`,
          sequence: Math.max(0, Math.floor((task.updatedAt.getTime() - task.createdAt.getTime()) / 1000)),
          summary: `${task.key} ${task.title}`,
          description: `Status: ${task.status}\n${link}`,
          url: link,
          start: due,
          ...(isWholeDay(due) ? { allDay: true, end: new Date(due.getTime() + DAY_MS) } : { end: due }),
          status: ICalEventStatus.CONFIRMED,
          stamp: task.updatedAt,
          lastModified: task.updatedAt,
          created: task.createdAt,
        });
      }
      return calendar.toString();
    },
  };
}

export type CalendarFeedService = ReturnType<typeof createCalendarFeedService>;
