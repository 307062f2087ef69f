import type { Activity, NotificationKind } from '@tasklane/schemas';

/**
 * The notifications an event causes, and the watchers it adds to its task: written by the
 * dispatcher after the event's commit (processors/notifications.ts), once. Never to the actor; only
 * to current members of the project; one per recipient, the first of `direct` that names them
 * winning over `watchers`.
 */
export interface NotificationPlan {
  /** Recipients named by the change (the new assignee, the mentioned, the invited), best kind first. */
  direct: { userId: string; kind: NotificationKind }[];
  /** The kind every subscribed watcher of the task gets, if the change concerns them. */
  watchers?: 'comment.created' | 'task.status_changed';
  commentId?: string | null;
  /** New watchers of the task: `auto` leaves an explicit opt-out alone; `force` (assigned, mentioned) undoes it. */
  watch?: { auto: string[]; force: string[] };
}

/** A new task: its creator and assignee watch it; the assignee (if not the creator) hears of it. */
export function taskCreatedPlan(creatorId: string, assigneeId: string | null): NotificationPlan {
  return {
    direct: assigneeId ? [{ userId: assigneeId, kind: 'task.assigned' }] : [],
    watch: { auto: [creatorId], force: assigneeId ? [assigneeId] : [] },
  };
}

/** A task update: a new assignee hears of it and watches it; a status change reaches its watchers. */
export function taskUpdatedPlan(changes: Record<string, { new: unknown }>): NotificationPlan | undefined {
  const assigneeId = typeof changes.assigneeId?.new === 'string' ? changes.assigneeId.new : null;
  const statusChanged = changes.status !== undefined;
  if (!assigneeId && !statusChanged) return undefined;
  return {
    direct: assigneeId ? [{ userId: assigneeId, kind: 'task.assigned' }] : [],
    ...(statusChanged ? { watchers: 'task.status_changed' as const } : {}),
    watch: { auto: [], force: assigneeId ? [assigneeId] : [] },
  };
}

/** A new comment: the mentioned hear of it as a mention, the other watchers as a comment; author and mentioned watch. */
export function commentCreatedPlan(commentId: string, authorId: string, mentionIds: readonly string[]): NotificationPlan {
  return {
    direct: mentionIds.map((userId) => ({ userId, kind: 'comment.mentioned' as const })),
    watchers: 'comment.created',
    commentId,
    watch: { auto: [authorId], force: [...mentionIds] },
  };
}

/** An edited comment: only users it mentions now and did not before hear of it. */
export function commentEditedPlan(commentId: string, before: readonly string[], after: readonly string[]): NotificationPlan | undefined {
  const added = after.filter((userId) => !before.includes(userId));
  if (added.length === 0) return undefined;
  return { direct: added.map((userId) => ({ userId, kind: 'comment.mentioned' as const })), commentId, watch: { auto: [], force: added } };
}

/** An invitation: the invited user hears of it. */
export const memberAddedPlan = (userId: string): NotificationPlan => ({ direct: [{ userId, kind: 'member.added' }] });

const idsIn = (value: unknown): string[] => (Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string') : []);
const stringIn = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** The plan of an event, told by the event alone (its type, resource and changes); undefined when it notifies no one. */
export function notificationPlanOf(event: Pick<Activity, 'type' | 'actorId' | 'resource' | 'changes'>): NotificationPlan | undefined {
  const { resource, changes } = event;
  switch (event.type) {
    case 'task.created':
      return taskCreatedPlan(event.actorId, stringIn(resource.assigneeId));
    case 'task.updated':
      return changes ? taskUpdatedPlan(changes) : undefined;
    case 'comment.created':
      return commentCreatedPlan(String(resource.id), event.actorId, idsIn(resource.mentionIds));
    case 'comment.updated': {
      const after = idsIn(resource.mentionIds);
      return commentEditedPlan(String(resource.id), changes?.mentionIds ? idsIn(changes.mentionIds.old) : after, after);
    }
    case 'member.added': {
      const userId = stringIn(resource.userId);
      return userId ? memberAddedPlan(userId) : undefined;
    }
    default:
      return undefined;
  }
}
