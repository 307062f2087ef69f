import type { Label, Member, Task } from '@tasklane/schemas';
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { t } from './i18n';

/** The glyph of a close or remove button: a sign, not a word (the button's name is its aria-label). */
export const CLOSE_GLYPH = '✕';

/** An API refusal or failure, with the server's message; announced to screen readers. */
export function ErrorNote({ error }: { error: string | undefined }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {error}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" role="status">
      {t('common.loading', { what })}
    </p>
  );
}

/**
 * What a page or a part of one shows when it holds nothing yet: what is missing, in a line, and what
 * to do about it (a sentence, and a button or link when the way is one click).
 */
export function EmptyState({ title, hint, action, small }: { title: string; hint?: string; action?: ComponentChildren; small?: boolean }) {
  // One line: the two sentences side by side, with a space where the language puts one (not after "。").
  if (small) return <p class="empty-state small muted">{hint ? `${title}${/[。！？]$/.test(title) ? '' : ' '}${hint}` : title}</p>;
  return (
    <div class="empty-state">
      <p class="empty-title">{title}</p>
      {hint && <p class="muted">{hint}</p>}
      {action}
    </div>
  );
}

/** Asks "are you sure?" in place, instead of a browser dialog. */
export function ConfirmButton(props: {
  label: string;
  question: string;
  confirmLabel: string;
  onConfirm: () => void;
  busy?: boolean;
  open: boolean;
  setOpen: (open: boolean) => void;
}) {
  if (!props.open) {
    return (
      <button type="button" class="danger" onClick={() => props.setOpen(true)}>
        {props.label}
      </button>
    );
  }
  return (
    <span class="confirm" role="group" aria-label={props.question}>
      <span>{props.question}</span>
      <button type="button" class="danger" disabled={props.busy} onClick={props.onConfirm}>
        {props.confirmLabel}
      </button>
      <button type="button" onClick={() => props.setOpen(false)}>
        {t('common.cancel')}
      </button>
    </span>
  );
}

/**
 * A page under the header: its title, the actions beside it, and its content. `narrow` is for pages of
 * settings and lists read top to bottom (account, members, webhooks, inbox): a measure a line can be
 * read in, each section a panel; the board and the other views of a project use the whole width.
 */
export function Page({ title, actions, narrow, children }: { title: string; actions?: ComponentChildren; narrow?: boolean; children: ComponentChildren }) {
  return (
    <main id="main" tabIndex={-1} class={narrow ? 'narrow' : undefined}>
      <div class="page-head">
        <h1>{title}</h1>
        {actions}
      </div>
      {children}
    </main>
  );
}

/** The `<option>`s of a select over an enum, labelled for people. */
export function EnumOptions({ labels }: { labels: Record<string, string> }) {
  return (
    <>
      {Object.entries(labels).map(([value, label]) => (
        <option key={value} value={value}>
          {label}
        </option>
      ))}
    </>
  );
}

/** The `<option>`s for picking a project member, by user id. */
export function MemberOptions({ members }: { members: Member[] }) {
  return (
    <>
      {members.map((member) => (
        <option key={member.userId} value={member.userId}>
          {member.name}
        </option>
      ))}
    </>
  );
}

/** A task's labels as chips: the label's colour as a dot beside its name (the text keeps the theme's contrast). */
export function LabelChips({ ids, labels }: { ids: string[]; labels: Label[] }) {
  const shown = ids.map((id) => labels.find((label) => label.id === id)).filter((label): label is Label => Boolean(label));
  if (shown.length === 0) return null;
  return (
    <ul class="labels" aria-label={t('common.labels')}>
      {shown.map((label) => (
        <li key={label.id} class="label-chip">
          <span class="dot" style={{ background: label.color }} aria-hidden="true" />
          {label.name}
        </li>
      ))}
    </ul>
  );
}

/** Small line icons drawn inline (no icon font, no emoji font needed); decorative, hidden from screen readers. */
export function Icon({ name }: { name: 'bell' | 'comment' | 'paperclip' }) {
  const paths = {
    paperclip: 'M21.44 11.05l-9.19 9.19a6 6 0 0 1-8.49-8.49l9.19-9.19a4 4 0 0 1 5.66 5.66l-9.2 9.19a2 2 0 0 1-2.83-2.83l8.49-8.48',
    bell: 'M6 8a6 6 0 0 1 12 0c0 7 3 9 3 9H3s3-2 3-9M10.3 21a1.94 1.94 0 0 0 3.4 0',
    comment: 'M21 15a2 2 0 0 1-2 2H7l-4 4V5a2 2 0 0 1 2-2h14a2 2 0 0 1 2 2z',
  };
  return (
    <svg class="icon" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">
      <path d={paths[name]} />
    </svg>
  );
}

/** Initials of a name ("Ada Lovelace" → "AL"), for the avatar. */
export const initialsOf = (name: string) =>
  name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((part) => part[0]!.toUpperCase())
    .join('');

/** An initials avatar; the full name in its tooltip and for screen readers. Its colour follows the name. */
export function Avatar({ name }: { name: string }) {
  let hash = 0;
  for (const char of name) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return (
    <span class={`avatar avatar-${hash % 6}`} title={name} role="img" aria-label={name}>
      {initialsOf(name)}
    </span>
  );
}

type MessageListener = (message: string | undefined) => void;
const messageListeners = new Set<MessageListener>();

/** Shows a message to everyone looking (a refused optimistic change, for one): the app's one alert area. */
export function announce(message: string | undefined) {
  for (const listener of messageListeners) listener(message);
}

export function Announcements() {
  const [message, setMessage] = useState<string | undefined>(undefined);
  useEffect(() => {
    messageListeners.add(setMessage);
    return () => void messageListeners.delete(setMessage);
  }, []);
  return (
    <div class="toast-area" role="alert">
      {message && (
        <p class="toast">
          {message}{' '}
          <button type="button" onClick={() => setMessage(undefined)}>
            {t('ui.dismiss')}
          </button>
        </p>
      )}
    </div>
  );
}

/** "2/5" when the task has subtasks: how many of them are done. */
export function SubtaskProgress({ task }: { task: Task }) {
  if (!task.subtaskCount) return null;
  return (
    <span class="subtask-progress" title={t('ui.subtasks.title', { done: task.subtasksDone, count: task.subtaskCount })}>
      {task.subtasksDone}/{task.subtaskCount}
      <span class="visually-hidden">{t('ui.subtasks.hidden', { count: task.subtaskCount })}</span>
    </span>
  );
}
