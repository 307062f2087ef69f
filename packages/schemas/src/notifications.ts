import { z } from 'zod';
import { IdRefSchema, IdSchema, PageQueryShape, PathIdSchema, TimestampSchema } from './common';

/** Every kind of in-app notification (docs/events.md, "Notifications"). */
export const NOTIFICATION_KINDS = ['task.assigned', 'comment.mentioned', 'comment.created', 'task.status_changed', 'task.due_soon', 'member.added'] as const;
export const NotificationKindSchema = z.enum(NOTIFICATION_KINDS).meta({ id: 'NotificationKind' });

/** At most this many users may be mentioned in one comment. */
export const MENTIONS_MAX = 50;

/** The users a comment mentions: distinct ids of the project's current members. */
export const MentionIdsSchema = z
  .array(IdRefSchema)
  .max(MENTIONS_MAX, { error: `mentionIds lists at most ${MENTIONS_MAX} users` })
  .refine((ids) => new Set(ids.map((id) => id.toLowerCase())).size === ids.length, { error: 'mentionIds must not repeat a user' })
  .meta({ description: `User ids of members of the project mentioned in the text (distinct, at most ${MENTIONS_MAX}); each is notified and starts watching the task` });

export const NotificationSchema = z
  .object({
    id: IdSchema,
    kind: NotificationKindSchema,
    projectId: IdSchema,
    projectName: z.string().meta({ description: "The project's current name" }),
    taskId: IdSchema.nullable().meta({ description: 'The task it is about; null for member.added' }),
    taskTitle: z.string().nullable().meta({ description: "The task's current title; null for member.added" }),
    commentId: IdSchema.nullable().meta({ description: 'The comment, for comment.created and comment.mentioned (null once the comment is deleted)' }),
    actorId: IdSchema.nullable().meta({ description: 'Who caused it; null for task.due_soon, which the service sends itself' }),
    actorName: z.string().nullable().meta({ description: "The actor's current name" }),
    createdAt: TimestampSchema,
    readAt: TimestampSchema.nullable(),
  })
  .meta({
    id: 'Notification',
    example: {
      id: '0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a90',
      kind: 'comment.mentioned',
      projectId: '0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8c',
      projectName: 'Website relaunch',
      taskId: '0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8d',
      taskTitle: 'Write the launch post',
      commentId: '0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8e',
      actorId: '0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b',
      actorName: 'Ada Lovelace',
      createdAt: '2026-11-21T09:30:00.000Z',
      readAt: null,
    },
  });

export const ListNotificationsInput = z
  .object({
    unread: z.enum(['true', 'false'], { error: 'unread must be true or false' }).optional().meta({ description: '`true`: unread notifications only' }),
    ...PageQueryShape,
  })
  .strict();

export const NotificationPathInput = z.object({ id: PathIdSchema }).strict();

export const UnreadCountSchema = z.object({ count: z.int().min(0) }).meta({ id: 'UnreadCount', example: { count: 3 } });

export const MarkAllReadSchema = z
  .object({ marked: z.int().min(0).meta({ description: 'How many notifications were unread and are now read' }) })
  .meta({ id: 'MarkAllRead', example: { marked: 3 } });

/** Whether the caller watches a task (is notified of its comments and status changes). */
export const SubscriptionSchema = z.object({ subscribed: z.boolean() }).meta({ id: 'Subscription', example: { subscribed: true } });

/** A live subscription to the caller's notifications; `lastEventId` resumes after that event. */
export const NotificationEventsInput = z
  .object({ lastEventId: z.string().regex(/^\d{1,18}$/, 'lastEventId must be an event id').nullish() })
  .strict()
  .optional();

export type NotificationKind = z.infer<typeof NotificationKindSchema>;
export type Notification = z.infer<typeof NotificationSchema>;
export type ListNotificationsInput = z.infer<typeof ListNotificationsInput>;
export type NotificationPathInput = z.infer<typeof NotificationPathInput>;
export type Subscription = z.infer<typeof SubscriptionSchema>;
