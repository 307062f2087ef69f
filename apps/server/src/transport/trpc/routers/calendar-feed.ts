import { CalendarFeedCreatedSchema, CalendarFeedStatusSchema, MessageSchema } from '@tasklane/schemas';
import { z } from 'zod';
import { protectedProcedure, router } from '../init';

const tags = ['auth'];
const path = '/auth/me/calendar-feed';
const what =
  'An RFC 5545 calendar (`GET`/`HEAD <server>/ical/<token>.ics`, no other credential) of the tasks assigned to you that have a due date, in projects you are a member of, due from 90 days ago on (at most 1 000): one event per task with its key, title, status and link, keeping its UID when the task changes.';

/** `auth.calendarFeed`: the caller's secret calendar address. */
export const calendarFeedRouter = router({
  create: protectedProcedure
    .meta({
      openapi: { method: 'POST', path, tags, summary: 'Make my calendar feed address', description: `${what} A new address replaces the old one, which stops working. The address is shown only now. Needs a login token (not a personal access token).` },
      successStatus: 201,
      location: '/auth/me/calendar-feed',
      errors: [403],
    })
    .input(z.object({}).strict().optional().meta({ examples: [{}] }))
    .output(CalendarFeedCreatedSchema)
    .mutation(({ ctx }) => ctx.services.calendarFeed.create(ctx.userId)),

  get: protectedProcedure
    .meta({ openapi: { method: 'GET', path, tags, summary: 'Whether I have a calendar feed', description: 'The address itself is never shown again: make a new one to see it.' } })
    .input(z.object({}).strict().optional())
    .output(CalendarFeedStatusSchema)
    .query(({ ctx }) => ctx.services.calendarFeed.status(ctx.userId)),

  delete: protectedProcedure
    .meta({ openapi: { method: 'DELETE', path, tags, summary: 'End my calendar feed', description: 'Its address answers 404 from now on; 404 when there is none. Needs a login token (not a personal access token).' }, errors: [403] })
    .input(z.object({}).strict().optional())
    .output(MessageSchema)
    .mutation(({ ctx }) => ctx.services.calendarFeed.remove(ctx.userId)),
});
