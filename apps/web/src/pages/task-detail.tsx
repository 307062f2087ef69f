import type { Comment, Member, Project, Task, TaskPriority, TaskStatus } from '@tasklane/schemas';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useCurrentUser } from '../app';
import { canEditTasks, dayFromDueDate, dueDateFromDay, formatTime, PRIORITY_LABELS, STATUS_LABELS } from '../format';
import { loadTaskHistory } from '../data';
import { useAction, useLoad } from '../hooks';
import { client } from '../session';
import { TaskHistory } from './task-history';
import { ConfirmButton, EnumOptions, ErrorNote, Loading, MemberOptions } from '../ui';

interface Props {
  taskId: string;
  project: Project;
  members: Member[];
  onClose: () => void;
  onChanged: () => void;
}

/** The task in a modal dialog over the board: every field, delete, comments and history. */
export function TaskDetail({ taskId, project, members, onClose, onChanged }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const task = useLoad(() => client.tasks.get.query({ id: taskId }), [taskId]);
  const history = useLoad(() => loadTaskHistory(taskId), [taskId]);

  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
  }, []);

  return (
    <dialog ref={dialog} class="task-dialog" aria-labelledby="task-dialog-title" onClose={onClose}>
      <div class="dialog-head">
        <h2 id="task-dialog-title">{task.data?.title ?? 'Task'}</h2>
        <button type="button" onClick={() => dialog.current?.close()} aria-label="Close">
          ✕
        </button>
      </div>
      <ErrorNote error={task.error} />
      {!task.data && !task.error && <Loading what="the task" />}
      {task.data && (
        <>
          <TaskForm
            key={task.data.updatedAt}
            task={task.data}
            project={project}
            members={members}
            onSaved={(saved) => {
              task.setData(() => saved);
              history.reload();
              onChanged();
            }}
            onDeleted={() => {
              onChanged();
              dialog.current?.close();
            }}
          />
          <Comments task={task.data} members={members} editable={canEditTasks(project.role)} onAdded={history.reload} />
          <TaskHistory history={history} members={members} />
        </>
      )}
    </dialog>
  );
}

function TaskForm(props: { task: Task; project: Project; members: Member[]; onSaved: (task: Task) => void; onDeleted: () => void }) {
  const { task } = props;
  const editable = canEditTasks(props.project.role);
  const [title, setTitle] = useState(task.title);
  const [description, setDescription] = useState(task.description);
  const [status, setStatus] = useState<TaskStatus>(task.status);
  const [priority, setPriority] = useState<TaskPriority>(task.priority);
  const [assigneeId, setAssigneeId] = useState(task.assigneeId ?? '');
  const [day, setDay] = useState(dayFromDueDate(task.dueDate));
  const [confirming, setConfirming] = useState(false);
  const { busy, error, run } = useAction();

  const save = async (event: Event) => {
    event.preventDefault();
    const saved = await run(() =>
      client.tasks.update.mutate({
        id: task.id,
        title,
        description,
        status,
        priority,
        assigneeId: assigneeId || null,
        dueDate: dueDateFromDay(day),
      }),
    );
    if (saved) props.onSaved(saved);
  };
  const remove = async () => {
    if (await run(() => client.tasks.delete.mutate({ id: task.id }))) props.onDeleted();
  };

  return (
    <form class="stack task-form" onSubmit={save} aria-label="Task fields">
      <fieldset disabled={!editable} class="stack">
        <label>
          Title
          <input value={title} onInput={(e) => setTitle(e.currentTarget.value)} required maxLength={500} />
        </label>
        <label>
          Description
          <textarea value={description} onInput={(e) => setDescription(e.currentTarget.value)} rows={4} />
        </label>
        <div class="fields">
          <label>
            Status
            <select value={status} onChange={(e) => setStatus(e.currentTarget.value as TaskStatus)}>
              <EnumOptions labels={STATUS_LABELS} />
            </select>
          </label>
          <label>
            Priority
            <select value={priority} onChange={(e) => setPriority(e.currentTarget.value as TaskPriority)}>
              <EnumOptions labels={PRIORITY_LABELS} />
            </select>
          </label>
          <label>
            Assignee
            <select value={assigneeId} onChange={(e) => setAssigneeId(e.currentTarget.value)}>
              <option value="">Unassigned</option>
              <MemberOptions members={props.members} />
            </select>
          </label>
          <label>
            Due date
            <input type="date" value={day} onInput={(e) => setDay(e.currentTarget.value)} />
          </label>
        </div>
      </fieldset>
      <ErrorNote error={error} />
      {editable && (
        <div class="row">
          <button type="submit" class="primary" disabled={busy}>
            Save changes
          </button>
          <ConfirmButton
            label="Delete task"
            question="Delete this task and its comments?"
            confirmLabel="Delete"
            onConfirm={remove}
            busy={busy}
            open={confirming}
            setOpen={setConfirming}
          />
        </div>
      )}
      <p class="muted small">
        Created {formatTime(task.createdAt)} · updated {formatTime(task.updatedAt)}
      </p>
    </form>
  );
}

function Comments({ task, members, editable, onAdded }: { task: Task; members: Member[]; editable: boolean; onAdded: () => void }) {
  const me = useCurrentUser();
  const [added, setAdded] = useState<Comment[]>([]);
  const [text, setText] = useState('');
  const { busy, error, run } = useAction();
  const authorName = (authorId: string) =>
    authorId === me.id ? me.name : (members.find((member) => member.userId === authorId)?.name ?? 'A former member');

  const submit = async (event: Event) => {
    event.preventDefault();
    const comment = await run(() => client.comments.create.mutate({ id: task.id, text }));
    if (!comment) return;
    setAdded((list) => [...list, comment]);
    setText('');
    onAdded();
  };

  return (
    <section class="comments" aria-labelledby="comments-title">
      <h3 id="comments-title">Comments</h3>
      <ol class="comment-list">
        {added.map((comment) => (
          <li key={comment.id}>
            <p class="small muted">
              {authorName(comment.authorId)} · <time dateTime={comment.createdAt}>{formatTime(comment.createdAt)}</time>
            </p>
            <p class="comment-text">{comment.text}</p>
          </li>
        ))}
      </ol>
      {editable && (
        <form class="stack" onSubmit={submit}>
          <label>
            Add a comment
            <textarea value={text} onInput={(e) => setText(e.currentTarget.value)} rows={2} required />
          </label>
          <ErrorNote error={error} />
          <button type="submit" disabled={busy}>
            Comment
          </button>
        </form>
      )}
    </section>
  );
}
