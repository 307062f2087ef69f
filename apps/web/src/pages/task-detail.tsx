import type { Label, Member, Project, Task, TaskPriority, TaskStatus } from '@tasklane/schemas';
import { TasklaneError } from '@tasklane/sdk';
import { useEffect, useRef, useState } from 'preact/hooks';
import { keys, loadTaskHistory, storeTask } from '../data';
import { canEditTasks, dayFromDueDate, dueDateFromDay, formatTime, priorityLabels } from '../format';
import { StateOptions, useStates } from '../states';
import { useAction, useQuery } from '../hooks';
import { t } from '../i18n';
import { client } from '../session';
import { CLOSE_GLYPH, ConfirmButton, EnumOptions, ErrorNote, Loading, MemberOptions } from '../ui';
import { Attachments } from './task-attachments';
import { Comments } from './task-comments';
import { Relations } from './task-relations';
import { TaskHistory } from './task-history';
import { ParentLink, Subtasks } from './task-subtasks';
import { RecurrencePicker } from './recurrence-picker';
import { TaskFields } from './task-fields';
import { TaskTime } from './task-time';
import { Markdown } from '../markdown';

interface Props {
  taskId: string;
  project: Project;
  members: Member[];
  labels: Label[];
  /** Opened with `e`: the title field takes the focus, its text selected. */
  editFirst?: boolean;
  onClose: () => void;
}

/** The task in a modal dialog over the board: its key and parent, every field, delete, subtasks, relations, files (dropped on the dialog), comments and history. */
export function TaskDetail({ taskId, project, members, labels, editFirst, onClose }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  // Closing leaves the task's address at once (Esc's `cancel` comes synchronously; the `close` event
  // comes a task later, when the next key may already have opened the task again).
  const close = () => {
    dialog.current?.close();
    onClose();
  };
  // The live stream writes this task's changes into the cache, and refreshes its history and comments.
  const task = useQuery(keys.task(taskId), () => client.tasks.get({ id: taskId }));
  const history = useQuery(keys.history(taskId), () => loadTaskHistory(taskId));
  const states = useStates(project.id);
  // The version the custom fields form saved: the main form takes it as its base (it changed no field of that form).
  const [fieldsSavedAt, setFieldsSavedAt] = useState<string | undefined>(undefined);

  useEffect(() => {
    const element = dialog.current;
    if (!element || element.open) return;
    element.showModal();
    if (editFirst && canEditTasks(project.role)) selectTitle(element.querySelector<HTMLInputElement>('input[name="title"]'));
  }, []);

  return (
    <dialog ref={dialog} class="task-dialog" aria-labelledby="task-dialog-title" onCancel={(event) => {
        event.preventDefault();
        close();
      }}>
      <div class="dialog-head">
        <h2 id="task-dialog-title">{task.data?.title ?? t('taskDetail.task')}</h2>
        <button type="button" onClick={close} aria-label={t('common.close')}>
          {CLOSE_GLYPH}
        </button>
      </div>
      <ErrorNote error={task.error} />
      {!task.data && !task.error && <Loading what={t('taskDetail.loadingWhat')} />}
      {task.data && (
        <>
          <p class="muted small task-key">{task.data.key}</p>
          {task.data.parentId && <ParentLink parentId={task.data.parentId} />}
          <TaskForm
            latest={task.data}
            project={project}
            members={members}
            labels={labels}
            editFirst={editFirst}
            fieldsSavedAt={fieldsSavedAt}
            onSaved={(saved) => {
              storeTask(saved);
              history.reload();
            }}
            onStale={task.reload}
            onDeleted={() => {
              storeTask(undefined, taskId);
              close();
            }}
          />
          <TaskFields task={task.data} project={project} members={members} onSaved={(saved) => setFieldsSavedAt(saved.updatedAt)} />
          <Subtasks task={task.data} editable={canEditTasks(project.role)} />
          <Relations task={task.data} project={project} editable={canEditTasks(project.role)} />
          <TaskTime task={task.data} project={project} members={members} />
          <Attachments task={task.data} project={project} />
          <Comments task={task.data} project={project} members={members} editable={canEditTasks(project.role)} onAdded={history.reload} />
          <TaskHistory history={history} members={members} states={states.data} />
        </>
      )}
    </dialog>
  );
}

type Draft = { title: string; description: string; status: TaskStatus; priority: TaskPriority; assigneeId: string; day: string; labelIds: string; recurrence: string; estimate: string };

const draftOf = (task: Task): Draft => ({
  title: task.title,
  description: task.description,
  status: task.status,
  priority: task.priority,
  assigneeId: task.assigneeId ?? '',
  day: dayFromDueDate(task.dueDate),
  // Kept as one string so that comparing drafts stays a comparison of values.
  labelIds: task.labelIds.join(','),
  recurrence: task.recurrence ?? '',
  estimate: task.estimate === null ? '' : String(task.estimate),
});

const sameDraft = (a: Draft, b: Draft) => (Object.keys(a) as (keyof Draft)[]).every((key) => a[key] === b[key]);

/**
 * The edit form keeps what the person typed even when someone else changes the task meanwhile:
 * an untouched form follows the latest version; a touched one says the task changed and offers it.
 */
function TaskForm(props: {
  latest: Task;
  project: Project;
  members: Member[];
  labels: Label[];
  editFirst: boolean | undefined;
  fieldsSavedAt: string | undefined;
  onSaved: (task: Task) => void;
  onStale: () => void;
  onDeleted: () => void;
}) {
  const { latest } = props;
  const editable = canEditTasks(props.project.role);
  const states = useStates(props.project.id);
  const [base, setBase] = useState(latest);
  const [draft, setDraft] = useState(() => draftOf(latest));
  const [confirming, setConfirming] = useState(false);
  const { busy, error, run } = useAction();
  const [refusedAsStale, setRefusedAsStale] = useState(false);
  const dirty = !sameDraft(draft, draftOf(base));
  const changedElsewhere = latest.updatedAt !== base.updatedAt;

  const showLatest = () => {
    setBase(latest);
    setDraft(draftOf(latest));
  };
  useEffect(() => {
    // Only a new version from the server moves the form: at once when untouched or after a refused save.
    if (changedElsewhere && (!dirty || refusedAsStale)) showLatest();
    // The custom fields form's own save changed none of this form's fields: keep the draft, move the
    // base so this form's next save is not refused as stale (412) because of it.
    else if (changedElsewhere && latest.updatedAt === props.fieldsSavedAt && sameDraft(draftOf(latest), draftOf(base))) setBase(latest);
  }, [latest, refusedAsStale, props.fieldsSavedAt]);

  const titleField = useRef<HTMLInputElement>(null);
  useEffect(() => {
    // Loaded after the dialog opened: take the focus now (else the dialog gives it on opening).
    if (props.editFirst && editable && titleField.current?.closest('dialog')?.open) selectTitle(titleField.current);
  }, []);

  const set = <K extends keyof Draft>(key: K) => (value: Draft[K]) => setDraft((current) => ({ ...current, [key]: value }));

  const save = async (event: Event) => {
    event.preventDefault();
    setRefusedAsStale(false);
    const patch = {
      id: base.id,
      title: draft.title,
      description: draft.description,
      status: draft.status,
      priority: draft.priority,
      assigneeId: draft.assigneeId || null,
      dueDate: dueDateFromDay(draft.day),
      labelIds: draft.labelIds ? draft.labelIds.split(',') : [],
      recurrence: draft.recurrence || null,
      estimate: draft.estimate.trim() === '' ? null : Number(draft.estimate),
    };
    // Saved only if nobody changed the task since this form loaded it (If-Match); else 412.
    const saved = await run(() =>
      client.tasks.update(patch, { ifMatch: base }).catch((failure: unknown) => {
        if (TasklaneError.from(failure).code !== 'PRECONDITION_FAILED') throw failure;
        setRefusedAsStale(true);
        props.onStale();
        return undefined;
      }),
    );
    if (!saved) return;
    setBase(saved);
    setDraft(draftOf(saved));
    props.onSaved(saved);
  };
  const remove = async () => {
    if (await run(() => client.tasks.delete({ id: base.id }))) props.onDeleted();
  };

  return (
    <form class="stack task-form" onSubmit={save} aria-label={t('taskDetail.formLabel')}>
      {refusedAsStale && (
        <p class="notice" role="alert">
          {t('taskDetail.refusedAsStale')}
        </p>
      )}
      {changedElsewhere && dirty && !refusedAsStale && (
        <p class="notice" role="status">
          {t('taskDetail.changedElsewhere')}{' '}
          <button type="button" onClick={showLatest}>
            {t('taskDetail.showLatest')}
          </button>
        </p>
      )}
      <fieldset disabled={!editable} class="stack">
        <label>
          {t('common.title')}
          <input ref={titleField} name="title" value={draft.title} onInput={(e) => set('title')(e.currentTarget.value)} required maxLength={500} />
        </label>
        <label>
          {t('common.description')}
          <textarea value={draft.description} onInput={(e) => set('description')(e.currentTarget.value)} rows={4} aria-describedby="description-hint" />
        </label>
        <span id="description-hint" class="muted small">
          {t('taskDetail.markdownHint')}
        </span>
        {draft.description.trim() !== '' && (
          <section class="description-preview" aria-labelledby="description-preview-title">
            <h3 id="description-preview-title" class="small muted">
              {t('taskDetail.preview')}
            </h3>
            <Markdown text={draft.description} project={props.project} members={props.members} />
          </section>
        )}
        <div class="fields">
          <label>
            {t('common.status')}
            <select value={draft.status} onChange={(e) => set('status')(e.currentTarget.value as TaskStatus)}>
              <StateOptions states={states.data ?? []} />
            </select>
          </label>
          <label>
            {t('common.priority')}
            <select value={draft.priority} onChange={(e) => set('priority')(e.currentTarget.value as TaskPriority)}>
              <EnumOptions labels={priorityLabels()} />
            </select>
          </label>
          <label>
            {t('common.assignee')}
            <select value={draft.assigneeId} onChange={(e) => set('assigneeId')(e.currentTarget.value)}>
              <option value="">{t('common.unassigned')}</option>
              <MemberOptions members={props.members} />
            </select>
          </label>
          <label>
            {t('common.dueDate')}
            <input type="date" value={draft.day} onInput={(e) => set('day')(e.currentTarget.value)} />
          </label>
          <label>
            {t(`taskDetail.estimate.${props.project.estimateUnit}`)}
            <input type="number" name="estimate" min={0} step={0.01} value={draft.estimate} onInput={(e) => set('estimate')(e.currentTarget.value)} />
          </label>
        </div>
        <RecurrencePicker value={draft.recurrence} hasDueDate={draft.day !== ''} onChange={set('recurrence')} />
        {latest.recurredFromId && <p class="muted small">{t('taskDetail.recurred')}</p>}
        {props.labels.length > 0 && (
          <fieldset class="label-picker">
            <legend>{t('common.labels')}</legend>
            {props.labels.map((label) => {
              const chosen = draft.labelIds ? draft.labelIds.split(',') : [];
              const on = chosen.includes(label.id);
              return (
                <label key={label.id} class="check label-chip">
                  <input
                    type="checkbox"
                    checked={on}
                    onChange={() => set('labelIds')((on ? chosen.filter((id) => id !== label.id) : [...chosen, label.id]).sort().join(','))}
                  />
                  <span class="dot" style={{ background: label.color }} aria-hidden="true" />
                  {label.name}
                </label>
              );
            })}
          </fieldset>
        )}
      </fieldset>
      <ErrorNote error={error} />
      {editable && (
        <div class="row">
          <button type="submit" class="primary" disabled={busy}>
            {t('taskDetail.saveChanges')}
          </button>
          <ConfirmButton
            label={t('taskDetail.deleteTask')}
            question={t('taskDetail.deleteQuestion')}
            confirmLabel={t('common.delete')}
            onConfirm={remove}
            busy={busy}
            open={confirming}
            setOpen={setConfirming}
          />
        </div>
      )}
      <p class="muted small">
        {t('taskDetail.createdUpdated', { created: formatTime(latest.createdAt), updated: formatTime(latest.updatedAt) })}
      </p>
    </form>
  );
}

/** `e` opens the task to edit it: the title field focused, its text selected. */
function selectTitle(input: HTMLInputElement | null) {
  input?.focus();
  input?.select();
}
