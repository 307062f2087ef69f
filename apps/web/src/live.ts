import type { Task } from '@tasklane/schemas';
import type { EventSubscription, ProjectEvent } from '@tasklane/sdk';
import { useEffect, useRef, useState } from 'preact/hooks';
import { fieldKeys, keys, storeTask, timelineKeys, viewKeys } from './data';
import { queryClient } from './hooks';
import { t } from './i18n';
import { client, describeError, isServerReachable, onReachabilityChange } from './session';
import { refreshTaskTime } from './timer';

export type { ProjectEvent };

/** Writes one change of the project into the cache: the event carries the changed resource whole. */
export function applyEvent(event: ProjectEvent) {
  const { type, taskId, projectId } = event;
  const resource = event.resource as unknown as Task;
  if (type === 'task.created' || type === 'task.updated') storeTask(resource);
  if (type === 'task.deleted' && taskId) storeTask(undefined, taskId);
  // The timeline reads windows of the project, not its whole list: a task's change reads an open one afresh.
  if (type.startsWith('task.')) void queryClient.invalidateQueries({ queryKey: timelineKeys.all(projectId) });
  // A board column not read to its end shows the project's count of it, which any task change may alter.
  if (type.startsWith('task.')) void queryClient.invalidateQueries({ queryKey: keys.project(projectId) });
  if (type.startsWith('relation.')) void queryClient.invalidateQueries({ queryKey: ['timeline-relations', projectId] });
  if (type.startsWith('comment.') && taskId) {
    const step = type === 'comment.created' ? 1 : type === 'comment.deleted' ? -1 : 0;
    const cached = queryClient.getQueryData<Task[]>(keys.tasks(projectId))?.find((task) => task.id === taskId);
    if (cached && step) storeTask({ ...cached, commentCount: Math.max(0, cached.commentCount + step) });
    void queryClient.invalidateQueries({ queryKey: keys.comments(taskId) });
  }
  // A file added or removed: the task's gallery, and its comments (which show their own files).
  if (type.startsWith('attachment.') && taskId) {
    const cached = queryClient.getQueryData<Task[]>(keys.tasks(projectId))?.find((task) => task.id === taskId);
    const step = type === 'attachment.created' ? 1 : type === 'attachment.deleted' ? -1 : 0;
    if (cached && step) storeTask({ ...cached, attachmentCount: Math.max(0, cached.attachmentCount + step) });
    void queryClient.invalidateQueries({ queryKey: keys.attachments(taskId) });
    void queryClient.invalidateQueries({ queryKey: keys.comments(taskId) });
  }
  // Time logged by anyone: the task's entries and total (no task event carries the new total).
  if (type.startsWith('time_entry.') && taskId) void refreshTaskTime(taskId);
  if (taskId) void queryClient.invalidateQueries({ queryKey: keys.history(taskId) });
  if (type.startsWith('member.')) {
    void queryClient.invalidateQueries({ queryKey: keys.members(projectId) });
    void queryClient.invalidateQueries({ queryKey: keys.project(projectId) });
  }
  // Invitations made, revoked or accepted by another admin (the members page's list; it keeps the links it was given).
  if (type.startsWith('invitation.')) void queryClient.invalidateQueries({ queryKey: keys.invitations(projectId) });
  if (type.startsWith('label.')) void queryClient.invalidateQueries({ queryKey: keys.labels(projectId) });
  // The board's columns; a deleted state's tasks arrive as task updates of their own.
  if (type.startsWith('state.')) {
    void queryClient.invalidateQueries({ queryKey: keys.states(projectId) });
    void queryClient.invalidateQueries({ queryKey: keys.project(projectId) });
  }
  // A shared view saved, changed or deleted by someone: the Views menu, and the view if it is open.
  if (type.startsWith('view.')) void queryClient.invalidateQueries({ queryKey: viewKeys.list(projectId) });
  if (type === 'project.updated') void queryClient.invalidateQueries({ queryKey: keys.project(projectId) });
  // Custom fields: the project's fields (an option deleted clears tasks, which come as task updates),
  // and the list's server-side filtered or sorted pages, which any task or field change may reorder.
  if (type.startsWith('field.')) void queryClient.invalidateQueries({ queryKey: fieldKeys.fields(projectId) });
  if (type.startsWith('field.') || type.startsWith('task.')) void queryClient.invalidateQueries({ queryKey: fieldKeys.taskQueries(projectId) });
  if (type.startsWith('relation.')) void refreshRelated(event.resource as unknown as { taskId: string; relatedTaskId: string });
}

/**
 * A relation created or deleted: both tasks' relation lists, and both tasks (the target's `blocked`
 * may have changed; it carries no event of its own). A task the reader cannot see stays as it is.
 */
export async function refreshRelated({ taskId, relatedTaskId }: { taskId: string; relatedTaskId: string }) {
  for (const id of [taskId, relatedTaskId]) {
    void queryClient.invalidateQueries({ queryKey: keys.relations(id) });
    const task = await client.tasks.get({ id }).catch(() => undefined);
    if (task) storeTask(task);
  }
}

/** Whether the browser says it is online and the server answered the last request, kept current. */
export function useOnline(): boolean {
  const current = () => navigator.onLine && isServerReachable();
  const [online, setOnline] = useState(current);
  useEffect(() => {
    const update = () => setOnline(current());
    window.addEventListener('online', update);
    window.addEventListener('offline', update);
    const unsubscribe = onReachabilityChange(update);
    return () => {
      window.removeEventListener('online', update);
      window.removeEventListener('offline', update);
      unsubscribe();
    };
  }, []);
  return online;
}

/** The stream's state for the page header; `reason`: why it stopped (describeError's words). */
type StreamStatus = { kind: 'connecting' | 'catchingUp' | 'live' | 'offline' } | { kind: 'stopped'; reason: string };

/**
 * Follows the project's event stream while the page is open and writes every change into the cache
 * (`onEvent` hears them too). When the browser comes back online the stream is opened again at once
 * from the last event seen (`Last-Event-ID`): the server replays what was missed, nothing is reloaded.
 * Returns a short status for the page header.
 */
export function useProjectEvents(projectId: string, onEvent?: (event: ProjectEvent) => void): string {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  // Kept as what happened, put in words at each render: the status follows a change of language.
  const [status, setStatus] = useState<StreamStatus>({ kind: 'connecting' });

  useEffect(() => {
    let closed = false;
    let subscription: EventSubscription | undefined;
    let lastEventId: string | undefined;
    const start = () => {
      setStatus({ kind: lastEventId ? 'catchingUp' : 'connecting' });
      client.events
        .subscribe(
          { projectId, lastEventId },
          {
            onEvent: (event) => {
              applyEvent(event);
              handler.current?.(event);
            },
            onError: (error) => setStatus({ kind: 'stopped', reason: describeError(error) }),
          },
        )
        .then(
          (started) => {
            subscription = started;
            if (closed) started.close();
            else setStatus({ kind: 'live' });
          },
          (error: unknown) => {
            if (!closed) setStatus(navigator.onLine ? { kind: 'stopped', reason: describeError(error) } : { kind: 'offline' });
          },
        );
    };
    const stop = () => {
      lastEventId = subscription?.lastEventId ?? lastEventId;
      subscription?.close();
      subscription = undefined;
    };
    const offline = () => {
      stop();
      setStatus({ kind: 'offline' });
    };
    const online = () => {
      stop();
      start();
    };
    window.addEventListener('offline', offline);
    window.addEventListener('online', online);
    // The server answering again (it was down while the browser stayed online) opens the stream too.
    const unsubscribe = onReachabilityChange((reachable) => reachable && online());
    start();
    return () => {
      closed = true;
      window.removeEventListener('offline', offline);
      window.removeEventListener('online', online);
      unsubscribe();
      stop();
    };
  }, [projectId]);

  return status.kind === 'stopped' ? t('live.stopped', { reason: status.reason }) : t(`live.${status.kind}`);
}
