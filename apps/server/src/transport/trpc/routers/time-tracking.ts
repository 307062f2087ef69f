import {
  CreateTimeEntryInput,
  MessageSchema,
  StartedTimerSchema,
  StartTimerInput,
  StoppedTimerSchema,
  TaskTimeEntriesInput,
  TimeEntryPathInput,
  TimeEntrySchema,
  TimeReportInput,
  TimeReportSchema,
  TimerSchema,
  UpdateTimeEntryInput,
} from '@tasklane/schemas';
import { z } from 'zod';
import { toCsv, wantsCsv } from '../../../platform/csv';
import { protectedProcedure, router } from '../init';
import { pagedList } from '../paged-list';

const tags = ['time'];

export const timeTrackingRouter = router({
  ...pagedList('listEntries', {
    meta: { openapi: { method: 'GET', path: '/tasks/{id}/time-entries', tags, summary: "List a task's time entries", description: 'Newest date first, paged by cursor. Members of the project.' } },
    input: TaskTimeEntriesInput,
    item: TimeEntrySchema,
    list: (ctx, input) => ctx.services.timeTracking.listEntries(ctx.userId, input),
  }),

  createEntry: protectedProcedure
    .meta({
      openapi: { method: 'POST', path: '/tasks/{id}/time-entries', tags, summary: 'Log time on a task', description: 'EDITOR, ADMIN or owner; userId is the caller. `date` defaults to today (UTC).' },
      successStatus: 201,
      location: '/time-entries/{id}',
      errors: [403],
    })
    .input(CreateTimeEntryInput)
    .output(TimeEntrySchema)
    .mutation(({ ctx, input }) => ctx.services.timeTracking.createEntry(ctx.userId, input)),

  getEntry: protectedProcedure
    .meta({ openapi: { method: 'GET', path: '/time-entries/{id}', tags, summary: 'Get a time entry', description: "Members of its task's project." } })
    .input(TimeEntryPathInput)
    .output(TimeEntrySchema)
    .query(({ ctx, input }) => ctx.services.timeTracking.getEntry(ctx.userId, input.id)),

  updateEntry: protectedProcedure
    .meta({ openapi: { method: 'PATCH', path: '/time-entries/{id}', tags, summary: 'Change a time entry', description: 'Its author (while EDITOR or up), or ADMIN and owner.' }, errors: [403] })
    .input(UpdateTimeEntryInput)
    .output(TimeEntrySchema)
    .mutation(({ ctx, input }) => ctx.services.timeTracking.updateEntry(ctx.userId, input)),

  deleteEntry: protectedProcedure
    .meta({ openapi: { method: 'DELETE', path: '/time-entries/{id}', tags, summary: 'Delete a time entry', description: 'Its author (while EDITOR or up), or ADMIN and owner.' }, errors: [403] })
    .input(TimeEntryPathInput)
    .output(MessageSchema)
    .mutation(({ ctx, input }) => ctx.services.timeTracking.removeEntry(ctx.userId, input.id)),

  startTimer: protectedProcedure
    .meta({
      openapi: { method: 'POST', path: '/tasks/{id}/timer', tags, summary: 'Start a timer on a task', description: 'EDITOR, ADMIN or owner. One timer per user: a timer running on any task is stopped into a time entry first (`stopped`).' },
      errors: [403],
    })
    .input(StartTimerInput)
    .output(StartedTimerSchema)
    .mutation(({ ctx, input }) => ctx.services.timeTracking.startTimer(ctx.userId, input.id)),

  stopTimer: protectedProcedure
    .meta({
      openapi: { method: 'DELETE', path: '/auth/me/timer', tags, summary: 'Stop my timer', description: 'Stops the running timer into a time entry on its task (at most 1 440 minutes; none when under a minute). 404 when no timer runs.' },
    })
    .input(z.object({}).strict().optional())
    .output(StoppedTimerSchema)
    .mutation(({ ctx }) => ctx.services.timeTracking.stopTimer(ctx.userId)),

  currentTimer: protectedProcedure
    .meta({ openapi: { method: 'GET', path: '/auth/me/timer', tags, summary: 'My running timer', description: 'The running timer, or null. A timer running over 24 hours has stopped itself at 24 hours (into a time entry).' } })
    .input(z.object({}).strict().optional())
    .output(TimerSchema.nullable())
    .query(({ ctx }) => ctx.services.timeTracking.currentTimer(ctx.userId)),

  report: protectedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/projects/{id}/time-report',
        tags,
        summary: "A project's time report",
        description: 'Minutes logged between `from` and `to` (inclusive), per user, task or day. Members of the project. With `Accept: text/csv`, the same rows as CSV.',
      },
      csv: true,
    })
    .input(TimeReportInput)
    .output(TimeReportSchema)
    .query(async ({ ctx, input }) => {
      const rows = await ctx.services.timeTracking.report(ctx.userId, input);
      if (wantsCsv(ctx.accept)) {
        ctx.response.body = { contentType: 'text/csv; charset=utf-8', text: toCsv(['key', 'label', 'minutes'], rows.map((row) => [row.key, row.label, String(row.minutes)])) };
      }
      return rows;
    }),
});
