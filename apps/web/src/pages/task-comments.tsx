import type { Attachment, Comment, Member, Project, Task } from '@tasklane/schemas';
import { COMMENT_TEXT_MAX } from '@tasklane/schemas/constants';
import { TasklaneError } from '@tasklane/sdk';
import { useRef, useState } from 'preact/hooks';
import { useCurrentUser } from '../current-user';
import { keys, loadComments } from '../data';
import { canAdminister, formatTime } from '../format';
import { useAction, useQuery } from '../hooks';
import { t } from '../i18n';
import { client } from '../session';
import { Markdown } from '../markdown';
import { CLOSE_GLYPH, ConfirmButton, EmptyState, ErrorNote } from '../ui';
import { Gallery, UploadProgress, useUploads } from './task-attachments';

/** The task's comments, oldest first, re-read whenever the live stream reports a change to them. */
export function Comments(props: { task: Task; project: Project; members: Member[]; editable: boolean; onAdded: () => void }) {
  const { task, editable, onAdded } = props;
  const comments = useQuery(keys.comments(task.id), () => loadComments(task.id));
  const [text, setText] = useState('');
  const { busy, error, run } = useAction();
  // Images pasted into the box: uploaded to the task at once, named by the comment when it is sent.
  const { uploads, upload, dismiss } = useUploads(task.id);
  const [pending, setPending] = useState<Attachment[]>([]);
  const paste = (event: ClipboardEvent) => {
    const files = [...(event.clipboardData?.files ?? [])].filter((file) => file.type.startsWith('image/'));
    if (files.length === 0) return;
    // A screenshot comes alone; copied text that brings an image along still pastes its text.
    if (!event.clipboardData?.types.includes('text/plain')) event.preventDefault();
    void upload(files.map((file, index) => (file.name && file.name !== 'image.png' ? file : new File([file], pastedName(file, index), { type: file.type })))).then(
      (stored) => setPending((current) => [...current, ...stored]),
    );
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    const mentionIds = mentionsIn(text, props.members);
    const attachmentIds = pending.map((attachment) => attachment.id);
    const comment = await run(() =>
      client.comments.create({ id: task.id, text, ...(mentionIds.length > 0 ? { mentionIds } : {}), ...(attachmentIds.length > 0 ? { attachmentIds } : {}) }),
    );
    if (!comment) return;
    setPending([]);
    comments.setData((list) => (list?.some((item) => item.id === comment.id) ? list : [...(list ?? []), comment]));
    setText('');
    onAdded();
  };

  return (
    <section class="comments" aria-labelledby="comments-title">
      <h3 id="comments-title">{t('taskComments.title')}</h3>
      <ErrorNote error={comments.error} />
      {comments.data?.length === 0 && <EmptyState small title={t('taskComments.empty')} hint={editable ? t('taskComments.emptyHint') : undefined} />}
      <ol class="comment-list">
        {comments.data?.map((comment) => (
          <CommentItem
            key={comment.id}
            comment={comment}
            project={props.project}
            members={props.members}
            onChanged={(changed) => comments.setData((list) => list?.map((item) => (item.id === changed.id ? changed : item)))}
            onDeleted={() => {
              comments.setData((list) => list?.filter((item) => item.id !== comment.id));
              onAdded();
            }}
          />
        ))}
      </ol>
      {editable && (
        <form class="stack" onSubmit={submit}>
          <MentionBox text={text} setText={setText} members={props.members} onPaste={paste} />
          <UploadProgress uploads={uploads} dismiss={dismiss} />
          {pending.length > 0 && (
            <ul class="pending-files" aria-label={t('taskComments.pendingFiles')}>
              {pending.map((attachment) => (
                <li key={attachment.id} class="row">
                  {attachment.filename}
                  <button
                    type="button"
                    aria-label={t('taskComments.leaveOut', { filename: attachment.filename })}
                    onClick={() => setPending((current) => current.filter((item) => item.id !== attachment.id))}
                  >
                    {CLOSE_GLYPH}
                  </button>
                </li>
              ))}
            </ul>
          )}
          <ErrorNote error={error} />
          <button type="submit" disabled={busy}>
            {t('taskComments.submit')}
          </button>
        </form>
      )}
    </section>
  );
}

/** A member is mentioned while their "@Name" is in the text (on an edit too: the list is sent whole). */
const mentionsIn = (text: string, members: Member[]) => members.filter((member) => text.includes(`@${member.name}`)).map((member) => member.userId);

/**
 * One comment, its text as Markdown. Its author edits it in place (the edit keeps the version it
 * started from and sends it as If-Match: a change made meanwhile refuses it, 412, and the newer
 * text is shown, with "Keep my text over it") and deletes it; ADMIN and owner delete anyone's. Both
 * ask first; the server decides (NOT_AUTHOR, FORBIDDEN are shown as they come).
 */
function CommentItem(props: { comment: Comment; project: Project; members: Member[]; onChanged: (comment: Comment) => void; onDeleted: () => void }) {
  const { comment, project } = props;
  const me = useCurrentUser();
  const mine = comment.authorId === me.id;
  const mayDelete = mine || canAdminister(project.role);
  // The version the edit started from, and what the person typed; undefined: not editing.
  const [editing, setEditing] = useState<{ base: Comment; text: string } | undefined>(undefined);
  // The newer version that refused the edit (412), shown beside the typed text.
  const [newer, setNewer] = useState<Comment | undefined>(undefined);
  const [deleting, setDeleting] = useState(false);
  const { busy, error, setError, run } = useAction();

  const stop = () => {
    setEditing(undefined);
    setNewer(undefined);
    setError(undefined);
  };
  const save = async (base: Comment, text: string) => {
    let refused = false;
    const saved = await run(() =>
      client.comments
        .update({ id: comment.taskId, commentId: comment.id, text, mentionIds: mentionsIn(text, props.members) }, { ifMatch: base })
        .catch(async (failure: unknown) => {
          if (TasklaneError.from(failure).code !== 'PRECONDITION_FAILED') throw failure;
          refused = true;
          // The newer version, read now: the cached list may not have it yet.
          const latest = await client.comments.get({ id: comment.taskId, commentId: comment.id });
          setNewer(latest);
          props.onChanged(latest);
          return undefined;
        }),
    );
    if (refused || !saved) return;
    props.onChanged(saved);
    stop();
  };
  const remove = async () => {
    let refused = false;
    const done = await run(() =>
      client.comments.delete({ id: comment.taskId, commentId: comment.id }, { ifMatch: comment }).catch(async (failure: unknown) => {
        if (TasklaneError.from(failure).code !== 'PRECONDITION_FAILED') throw failure;
        refused = true;
        props.onChanged(await client.comments.get({ id: comment.taskId, commentId: comment.id }));
        return undefined;
      }),
    );
    setDeleting(false);
    if (refused) setError(t('taskComments.notDeleted'));
    else if (done) props.onDeleted();
  };

  const edited = comment.updatedAt !== comment.createdAt;
  return (
    <li class="comment" data-comment-id={comment.id}>
      <p class="small muted" id={`comment-meta-${comment.id}`}>
        {comment.authorName} · <time dateTime={comment.createdAt}>{formatTime(comment.createdAt)}</time>
        {edited && <span title={t('taskComments.editedAt', { time: formatTime(comment.updatedAt) })}> · {t('taskComments.edited')}</span>}
      </p>
      {editing ? (
        <form
          class="stack"
          aria-label={t('taskComments.editLabel', { name: comment.authorName })}
          onSubmit={(event) => {
            event.preventDefault();
            void save(editing.base, editing.text);
          }}
        >
          {newer && (
            <div class="notice" role="alert">
              {/* Shown when an edit was refused (412): the comment changed since the edit began. */}
              <p>{t('taskComments.changedElsewhere')}</p>
              <Markdown text={newer.text} project={project} members={props.members} label={t('taskComments.newerText')} />
              <div class="row">
                <button type="button" disabled={busy} onClick={() => void save(newer, editing.text)}>
                  {t('taskComments.keepMine')}
                </button>
                <button type="button" disabled={busy} onClick={stop}>
                  {t('taskComments.takeNewer')}
                </button>
              </div>
            </div>
          )}
          <label>
            {t('taskComments.text')}
            <textarea value={editing.text} rows={3} required maxLength={COMMENT_TEXT_MAX} onInput={(event) => setEditing({ ...editing, text: event.currentTarget.value })} />
          </label>
          <ErrorNote error={error} />
          <div class="row">
            <button type="submit" class="primary" disabled={busy}>
              {t('taskComments.saveEdit')}
            </button>
            <button type="button" onClick={stop}>
              {t('common.cancel')}
            </button>
          </div>
        </form>
      ) : (
        <>
          <Markdown text={comment.text} project={project} members={props.members} class="comment-text" />
          {comment.attachments.length > 0 && <Gallery attachments={comment.attachments} label={t('taskComments.filesOf', { name: comment.authorName })} />}
          {!editing && <ErrorNote error={error} />}
          {(mine || mayDelete) && (
            <div class="row comment-actions">
              {mine && (
                <button
                  type="button"
                  aria-describedby={`comment-meta-${comment.id}`}
                  onClick={() => {
                    setError(undefined);
                    setNewer(undefined);
                    setEditing({ base: comment, text: comment.text });
                  }}
                >
                  {t('common.edit')}
                </button>
              )}
              {mayDelete && (
                <ConfirmButton
                  label={t('common.delete')}
                  question={mine ? t('taskComments.deleteOwn') : t('taskComments.deleteOther', { name: comment.authorName })}
                  confirmLabel={t('common.delete')}
                  onConfirm={() => void remove()}
                  busy={busy}
                  open={deleting}
                  setOpen={setDeleting}
                />
              )}
            </div>
          )}
        </>
      )}
    </li>
  );
}

/** A pasted screenshot is called "image.png" by every browser: give it a name worth keeping. */
function pastedName(file: File, index: number): string {
  const stamp = new Date().toISOString().slice(0, 19).replace('T', ' ').replace(/:/g, '.');
  const extension = file.type.split('/')[1]?.replace('jpeg', 'jpg') ?? 'png';
  const name = index > 0 ? t('taskComments.pastedImageNumbered', { stamp, number: index + 1 }) : t('taskComments.pastedImage', { stamp });
  return `${name}.${extension}`;
}

/** The words before the caret when they start with "@": what to complete, and where it starts. */
function mentionAt(text: string, caret: number): { start: number; query: string } | undefined {
  const match = /(^|\s)@([^\s@]{0,30}(?: [^\s@]{0,30})?)$/.exec(text.slice(0, caret));
  return match ? { start: caret - match[2]!.length - 1, query: match[2]!.toLowerCase() } : undefined;
}

/**
 * The comment box: typing "@" offers the project's members (arrows to choose, Enter or Tab to take,
 * Esc to dismiss); taking one writes "@Full Name", and the comment is sent with their id in mentionIds.
 */
function MentionBox({ text, setText, members, onPaste }: { text: string; setText: (text: string) => void; members: Member[]; onPaste: (event: ClipboardEvent) => void }) {
  const me = useCurrentUser();
  const box = useRef<HTMLTextAreaElement>(null);
  const [mention, setMention] = useState<{ start: number; query: string } | undefined>(undefined);
  const [active, setActive] = useState(0);
  const options = mention
    ? members.filter((member) => member.userId !== me.id && member.name.toLowerCase().includes(mention.query)).slice(0, 6)
    : [];
  const open = options.length > 0;
  const take = (member: Member) => {
    const element = box.current!;
    const caret = element.selectionStart;
    const inserted = `@${member.name} `;
    // Written into the field at once, caret after the name, so typing on continues right there.
    element.value = text.slice(0, mention!.start) + inserted + text.slice(caret);
    element.setSelectionRange(mention!.start + inserted.length, mention!.start + inserted.length);
    setText(element.value);
    setMention(undefined);
  };
  return (
    <div class="mention-box">
      <label>
        {t('taskComments.add')}
        <textarea
          ref={box}
          value={text}
          rows={2}
          required
          aria-autocomplete="list"
          aria-describedby="comment-paste-hint"
          onPaste={onPaste}
          aria-controls="mention-options"
          aria-activedescendant={open ? `mention-${active}` : undefined}
          onInput={(event) => {
            const element = event.currentTarget;
            setText(element.value);
            setMention(mentionAt(element.value, element.selectionStart));
            setActive(0);
          }}
          onKeyDown={(event) => {
            if (!open) return;
            if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
              event.preventDefault();
              setActive((current) => (current + (event.key === 'ArrowDown' ? 1 : -1) + options.length) % options.length);
            } else if (event.key === 'Enter' || event.key === 'Tab') {
              event.preventDefault();
              take(options[active]!);
            } else if (event.key === 'Escape') {
              event.preventDefault();
              event.stopPropagation();
              setMention(undefined);
            }
          }}
        />
      </label>
      <span id="comment-paste-hint" class="muted small">
        {t('taskComments.pasteHint')}
      </span>
      <ul id="mention-options" role="listbox" aria-label={t('taskComments.mentionOptions')} hidden={!open}>
        {options.map((member, index) => (
          <li
            key={member.userId}
            id={`mention-${index}`}
            role="option"
            aria-selected={index === active}
            class={index === active ? 'active' : undefined}
            onMouseDown={(event) => {
              event.preventDefault();
              take(member);
            }}
          >
            {member.name}
          </li>
        ))}
      </ul>
    </div>
  );
}
