import { z } from 'zod';
import { IdSchema, PageQueryShape, PathIdSchema, TimestampSchema } from './common';
import { text } from './text';
import { TIME_REPORT_GROUPS } from './constants';

export { TIME_REPORT_GROUPS } from './constants';

export const TIME_ENTRY_MINUTES_MAX = 1_440;
export const TIME_ENTRY_NOTE_MAX = 2_000;
/** A timer left running longer stops itself at this length (one day's entry). */
export const TIMER_MAX_MINUTES = 1_440;

/** A calendar date, YYYY-MM-DD, that exists (2026-02-30 does not), years 1–9999. */
export const CalendarDateSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'Expected a date as YYYY-MM-DD', abort: true })
  .refine(
    (value) => {
      const [year, month, day] = value.split('-').map(Number) as [number, number, number];
      const date = new Date(Date.UTC(year, month - 1, day));
      return year >= 1 && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
    },
    { message: 'Invalid date' },
  )
  .meta({ description: 'A calendar date, YYYY-MM-DD', example: '2026-11-27' });

export const MinutesSchema = z
  .number()
  .int({ error: 'minutes must be a whole number' })
  .min(1, { error: 'minutes must be at least 1' })
  .max(TIME_ENTRY_MINUTES_MAX, { error: `minutes must be at most ${TIME_ENTRY_MINUTES_MAX}` })
  .meta({ description: `Whole minutes, 1–${TIME_ENTRY_MINUTES_MAX}`, example: 90 });

const NoteSchema = text({ max: TIME_ENTRY_NOTE_MAX }).meta({ description: `Free text, at most ${TIME_ENTRY_NOTE_MAX} characters` });

export const TimeEntrySchema = z
  .object({
    id: IdSchema,
    taskId: IdSchema,
    userId: IdSchema,
    minutes: z.number().int(),
    date: z.string().meta({ description: 'The UTC date the time was spent on, YYYY-MM-DD', example: '2026-11-27' }),
    note: z.string(),
    createdAt: TimestampSchema,
  })
  .meta({ id: 'TimeEntry' });

export const CreateTimeEntryInput = z
  .object({
    id: PathIdSchema,
    minutes: MinutesSchema,
    date: CalendarDateSchema.optional().meta({ description: "YYYY-MM-DD; today's date in UTC when absent" }),
    note: NoteSchema.optional(),
  })
  .strict()
  .meta({ examples: [{ minutes: 90, date: '2026-11-27', note: 'Reviewed the draft' }] });

export const TaskTimeEntriesInput = z.object({ id: PathIdSchema, ...PageQueryShape }).strict();

export const TimeEntryPathInput = z.object({ id: PathIdSchema }).strict();

export const UpdateTimeEntryInput = z
  .object({ id: PathIdSchema, minutes: MinutesSchema.optional(), date: CalendarDateSchema.optional(), note: NoteSchema.optional() })
  .strict()
  .meta({ examples: [{ minutes: 120 }] });

export const TimerSchema = z
  .object({
    taskId: IdSchema,
    userId: IdSchema,
    startedAt: TimestampSchema,
  })
  .meta({ id: 'Timer' });

export const StartTimerInput = z.object({ id: PathIdSchema }).strict();

/** What stopping a timer gives: the entry it became (null when it ran under a minute, which logs nothing). */
export const StoppedTimerSchema = z
  .object({ entry: TimeEntrySchema.nullable().meta({ description: 'The entry the stopped timer became; null when it ran under a minute' }) })
  .meta({ id: 'StoppedTimer' });

export const StartedTimerSchema = z
  .object({
    timer: TimerSchema,
    stopped: TimeEntrySchema.nullable().meta({ description: 'The entry the timer running before became, if one was running (and ran a minute or more)' }),
  })
  .meta({ id: 'StartedTimer' });

export const TimeReportInput = z
  .object({
    id: PathIdSchema,
    from: CalendarDateSchema.meta({ description: 'First date of the report (inclusive), YYYY-MM-DD' }),
    to: CalendarDateSchema.meta({ description: 'Last date of the report (inclusive), YYYY-MM-DD' }),
    groupBy: z.enum(TIME_REPORT_GROUPS).meta({ description: 'user, task or day' }),
  })
  .strict()
  .refine((input) => input.from <= input.to, { message: 'from must not be after to', path: ['to'] });

export const TimeReportRowSchema = z
  .object({
    key: z.string().meta({ description: "The group's key: a user's id, a task's id, or a date (YYYY-MM-DD)" }),
    label: z.string().meta({ description: "The user's name, the task's key and title, or the date" }),
    minutes: z.number().int(),
  })
  .meta({ id: 'TimeReportRow' });

export const TimeReportSchema = z.array(TimeReportRowSchema);

export type TimeEntry = z.infer<typeof TimeEntrySchema>;
export type CreateTimeEntryInput = z.infer<typeof CreateTimeEntryInput>;
export type UpdateTimeEntryInput = z.infer<typeof UpdateTimeEntryInput>;
export type TaskTimeEntriesInput = z.infer<typeof TaskTimeEntriesInput>;
export type Timer = z.infer<typeof TimerSchema>;
export type TimeReportInput = z.infer<typeof TimeReportInput>;
export type TimeReportRow = z.infer<typeof TimeReportRowSchema>;
