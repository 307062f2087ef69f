import type { Task, TaskStatus } from '@tasklane/schemas';
import { useEffect, useRef, useState } from 'preact/hooks';
import { storeTask } from '../data';
import { useAction } from '../hooks';
import { client } from '../session';
import { StateOptions, useStates } from '../states';
import { t } from '../i18n';
import { ErrorNote } from '../ui';

/** The one "New task" form (`c`, a column's +, the palette): a title and a column, then Enter. */
export function NewTaskDialog({ projectId, status, onClose }: { projectId: string; status: TaskStatus; onClose: (created?: Task) => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const created = useRef<Task | undefined>(undefined);
  const [title, setTitle] = useState('');
  const [column, setColumn] = useState<TaskStatus>(status);
  const states = useStates(projectId);
  const { busy, error, run } = useAction();
  useEffect(() => {
    if (dialog.current && !dialog.current.open) dialog.current.showModal();
  }, []);
  const submit = async (event: Event) => {
    event.preventDefault();
    const task = await run(() => client.tasks.create({ projectId, title, status: column }));
    if (!task) return;
    storeTask(task);
    created.current = task;
    dialog.current?.close();
  };
  return (
    <dialog ref={dialog} class="small-dialog" aria-labelledby="new-task-title" onClose={() => onClose(created.current)}>
      <form class="stack" onSubmit={submit}>
        <h2 id="new-task-title">{t('newTask.title')}</h2>
        <label>
          {t('common.title')}
          <input value={title} onInput={(e) => setTitle(e.currentTarget.value)} required maxLength={500} autoFocus />
        </label>
        <label>
          {t('newTask.column')}
          <select value={column} onChange={(e) => setColumn(e.currentTarget.value as TaskStatus)}>
            <StateOptions states={states.data ?? []} />
          </select>
        </label>
        <ErrorNote error={error} />
        <div class="row">
          <button type="submit" class="primary" disabled={busy}>
            {t('newTask.create')}
          </button>
          <button type="button" onClick={() => dialog.current?.close()}>
            {t('common.cancel')}
          </button>
        </div>
      </form>
    </dialog>
  );
}
