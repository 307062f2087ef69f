import type { Member } from '@tasklane/schemas';
import type { ComponentChildren } from 'preact';

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
  return <p class="muted" role="status">Loading {what}…</p>;
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
        Cancel
      </button>
    </span>
  );
}

export function Page({ title, actions, children }: { title: string; actions?: ComponentChildren; children: ComponentChildren }) {
  return (
    <main id="main" tabIndex={-1}>
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
