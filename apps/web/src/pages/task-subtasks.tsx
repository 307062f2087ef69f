import type { Task } from '@tasklane/schemas';
import { useState } from 'preact/hooks';
import { isCompleted, keys, loadSubtasks, storeTask } from '../data';
import { useAction, useQuery } from '../hooks';
import { t } from '../i18n';
import { client } from '../session';
import { useStates } from '../states';
import { ErrorNote } from '../ui';

/** The task's parent, as a link to open it, for a subtask. */
export function ParentLink({ parentId }: { parentId: string }) {
  const parent = useQuery(keys.task(parentId), () => client.tasks.get({ id: parentId }));
  return (
    <p class="parent-link">
      {/* Split around the link: each language puts it where its sentence wants it. */}
      {t('taskSubtasks.parent.before')}
      <a href={`/projects/${parent.data?.projectId ?? ''}/tasks/${parentId}`}>{parent.data ? `${parent.data.key} ${parent.data.title}` : t('taskSubtasks.parent.fallback')}</a>
      {t('taskSubtasks.parent.after')}
    </p>
  );
}

/**
 * The task's subtasks: each ticked off (moved to the project's first `completed` state, or back to
 * its first `unstarted` one) or opened; a new one added by its title.
 */
export function Subtasks({ task, editable }: { task: Task; editable: boolean }) {
  const subtasks = useQuery(keys.subtasks(task.id), () => loadSubtasks(task));
  const states = useStates(task.projectId);
  const firstOf = (category: string) => states.data?.find((state) => state.category === category)?.key;
  const [title, setTitle] = useState('');
  // A tick shows at once, while its save is under way (the box would otherwise spring back until the answer).
  const [ticking, setTicking] = useState<Record<string, boolean>>({});
  const { busy, error, run } = useAction();
  const list = subtasks.data ?? [];
  const done = list.filter((subtask) => isCompleted(subtask)).length;

  const add = async (event: Event) => {
    event.preventDefault();
    const created = await run(() => client.tasks.create({ title, projectId: task.projectId, parentId: task.id }));
    if (!created) return;
    setTitle('');
    storeTask(created);
  };
  const tick = async (subtask: Task, completed: boolean) => {
    setTicking((current) => ({ ...current, [subtask.id]: completed }));
    const saved = await run(() => client.tasks.update({ id: subtask.id, status: (completed ? firstOf('completed') : firstOf('unstarted')) ?? (completed ? 'DONE' : 'TODO') }));
    if (saved) {
      subtasks.setData((current) => current?.map((item) => (item.id === saved.id ? saved : item)));
      storeTask(saved);
    }
    setTicking(({ [subtask.id]: _done, ...others }) => others);
  };

  return (
    <section class="subtasks stack" aria-labelledby="subtasks-heading">
      <h3 id="subtasks-heading">
        {t('taskSubtasks.title')}
        {list.length > 0 && <span class="muted"> {done}/{list.length}</span>}
      </h3>
      <ErrorNote error={subtasks.error} />
      {list.length > 0 && (
        <ul class="subtask-list">
          {list.map((subtask) => (
            <li key={subtask.id} class="row">
              <input
                type="checkbox"
                aria-label={t('taskSubtasks.doneLabel', { title: subtask.title })}
                checked={ticking[subtask.id] ?? isCompleted(subtask)}
                disabled={!editable || busy}
                onChange={(event) => void tick(subtask, event.currentTarget.checked)}
              />
              <span class="task-key">{subtask.key}</span>
              <a href={`/projects/${subtask.projectId}/tasks/${subtask.id}`}>{subtask.title}</a>
            </li>
          ))}
        </ul>
      )}
      {editable && (
        <form class="row" onSubmit={add} aria-label={t('taskSubtasks.addLabel')}>
          <input aria-label={t('taskSubtasks.newLabel')} value={title} onInput={(event) => setTitle(event.currentTarget.value)} required maxLength={500} />
          <button type="submit" disabled={busy}>
            {t('taskSubtasks.add')}
          </button>
        </form>
      )}
      <ErrorNote error={error} />
    </section>
  );
}
