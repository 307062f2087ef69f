import type { Member, Project, Task } from '@tasklane/schemas';
import { useState } from 'preact/hooks';
import { keys, loadComments } from '../data';
import { formatTime } from '../format';
import { useAction, useQuery } from '../hooks';
import { client } from '../session';
import { ErrorNote } from '../ui';

/** The task's comments, oldest first, re-read whenever the live stream reports a change to them. */
export function Comments(props: { task: Task; project: Project; members: Member[]; editable: boolean; onAdded: () => void }) {
  const { task, editable, onAdded } = props;
  const comments = useQuery(keys.comments(task.id), () => loadComments(task.id));
  const [text, setText] = useState('');
  const { busy, error, run } = useAction();

  const submit = async (event: Event) => {
    event.preventDefault();
    const comment = await run(() => client.comments.create({ id: task.id, text }));
    if (!comment) return;
    comments.setData((list) => (list?.some((item) => item.id === comment.id) ? list : [...(list ?? []), comment]));
    setText('');
    onAdded();
  };

  return (
    <section class="comments" aria-labelledby="comments-title">
      <h3 id="comments-title">Comments</h3>
      <ErrorNote error={comments.error} />
      {comments.data?.length === 0 && <p class="muted small">No comments yet.</p>}
      <ol class="comment-list">
        {comments.data?.map((comment) => (
          <li key={comment.id}>
            <p class="small muted">
              {comment.authorName} · <time dateTime={comment.createdAt}>{formatTime(comment.createdAt)}</time>
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
