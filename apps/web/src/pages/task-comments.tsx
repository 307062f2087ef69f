import type { Comment, Member, Task } from '@tasklane/schemas';
import { useState } from 'preact/hooks';
import { useCurrentUser } from '../app';
import { formatTime } from '../format';
import { useAction } from '../hooks';
import { client } from '../session';
import { ErrorNote } from '../ui';

export function Comments({ task, members, editable, onAdded }: { task: Task; members: Member[]; editable: boolean; onAdded: () => void }) {
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
