import { z } from 'zod';
import { TimestampSchema } from './common';

export const CalendarFeedCreatedSchema = z
  .object({
    url: z.string().meta({
      description: 'The secret address of the feed (`<server>/ical/<token>.ics`): shown once, only its digest is kept. Anyone holding it reads the calendar, so share it like a password',
      example: 'https://tasks.example.com/ical/3q2-7wEjR0sZ7X0f1v9Kb7y4lq8mWZ0uYbJc8X2nJ5A.ics',
    }),
  })
  .meta({ id: 'CalendarFeedCreated' });

export const CalendarFeedStatusSchema = z
  .object({
    active: z.boolean().meta({ description: 'Whether the caller has a feed address' }),
    createdAt: TimestampSchema.nullable().meta({ description: 'When the current address was made; null without one' }),
  })
  .meta({ id: 'CalendarFeedStatus' });

export type CalendarFeedCreated = z.infer<typeof CalendarFeedCreatedSchema>;
export type CalendarFeedStatus = z.infer<typeof CalendarFeedStatusSchema>;
