import type { AccessToken, CreatedAccessToken, Project, Session, TokenScope } from '@tasklane/schemas';
import { useState } from 'preact/hooks';
import { collect, keys, loadProjects } from '../data';
import { formatDay, formatTime } from '../format';
import { useCurrentUser } from '../current-user';
import { useAction, useQuery } from '../hooks';
import { client, PASSWORD_CHANGED_NOTICE, signOut, updateCurrentUser } from '../session';
import { saveResponse } from '../download';
import { announce, ConfirmButton, EnumOptions, ErrorNote, Loading, Page } from '../ui';

const SCOPE_LABELS = {
  read: 'Read: look, change nothing',
  write: 'Write: also create and change tasks and comments',
  admin: 'Admin: everything you may do',
} as const satisfies Record<TokenScope, string>;

/** The account page: profile, email settings, calendar feed, personal access tokens for scripts, and the sessions signed in. */
export function AccountPage() {
  return (
    <Page title="Account">
      <Profile />
      <EmailSetting />
      <CalendarFeed />
      <Tokens />
      <Sessions />
      <MyData />
    </Page>
  );
}

/** Everything the server keeps about you (account, memberships, your comments and time) as one JSON file. */
function MyData() {
  const { run, busy, error } = useAction();
  return (
    <section class="stack" aria-labelledby="my-data-title">
      <h2 id="my-data-title">Your data</h2>
      <p class="muted">Your account, memberships, settings, tokens' details, and every comment and time entry you wrote, as one JSON file.</p>
      <ErrorNote error={error} />
      <div class="row">
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            void run(async () => {
              await saveResponse(await client.auth.exportMe(), 'tasklane-account.json');
              announce('Your data is downloading.');
            })
          }
        >
          Download my data
        </button>
      </div>
    </section>
  );
}

function Tokens() {
  const tokens = useQuery(['tokens'], () => collect(client.paginate(client.tokens.list, { limit: 500 })));
  const [created, setCreated] = useState<CreatedAccessToken | undefined>(undefined);
  const projects = useQuery(keys.projects, loadProjects);
  const projectNames = new Map(projects.data?.map((project) => [project.id, project.name]));
  return (
    <section class="stack" aria-labelledby="tokens-title">
      <h2 id="tokens-title">Personal access tokens</h2>
      <p class="muted">For scripts and CI: send one as <code>Authorization: Bearer</code>. A token never does more than you may.</p>
      <NewToken
        onCreated={(token) => {
          setCreated(token);
          tokens.setData((list) => [token, ...(list ?? [])]);
        }}
      />
      {created && (
        <div class="card notice" role="status">
          <p>
            Your new token <strong>{created.name}</strong>. Copy it now: it is not shown again.
          </p>
          <label>
            Token
            <input readOnly value={created.token} onFocus={(e) => e.currentTarget.select()} />
          </label>
        </div>
      )}
      <ErrorNote error={tokens.error} />
      {tokens.loading && !tokens.data ? (
        <Loading what="your tokens" />
      ) : tokens.data?.length === 0 ? (
        <p class="muted">No tokens yet. Create one above to let a script or CI act as you.</p>
      ) : (
        <table class="members">
          <caption class="visually-hidden">Your personal access tokens</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Scopes</th>
              <th scope="col">Last used</th>
              <th scope="col">Expires</th>
              <th scope="col">
                <span class="visually-hidden">Revoke</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {tokens.data?.map((token) => (
              <TokenRow key={token.id} token={token} projectNames={projectNames} onRevoked={() => tokens.setData((list) => list?.filter((item) => item.id !== token.id))} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function NewToken({ onCreated }: { onCreated: (token: CreatedAccessToken) => void }) {
  const projects = useQuery(keys.projects, loadProjects);
  const [name, setName] = useState('');
  const [scope, setScope] = useState<TokenScope>('read');
  const [expires, setExpires] = useState('');
  const [limitTo, setLimitTo] = useState<string[]>([]);
  const { busy, error, run } = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const token = await run(() =>
      client.tokens.create({
        name,
        scopes: [scope],
        ...(limitTo.length > 0 ? { projectIds: limitTo } : {}),
        ...(expires ? { expiresAt: new Date(`${expires}T23:59:59.999`).toISOString() } : {}),
      }),
    );
    if (!token) return;
    onCreated(token);
    setName('');
    setLimitTo([]);
  };
  const toggle = (project: Project, on: boolean) => setLimitTo((ids) => (on ? [...ids, project.id] : ids.filter((id) => id !== project.id)));
  return (
    <form class="card stack" onSubmit={submit} aria-label="Create a token">
      <div class="row">
        <label class="grow">
          Token name
          <input value={name} onInput={(e) => setName(e.currentTarget.value)} required maxLength={100} />
        </label>
        <label>
          Scope
          <select value={scope} onChange={(e) => setScope(e.currentTarget.value as TokenScope)}>
            <EnumOptions labels={SCOPE_LABELS} />
          </select>
        </label>
        <label>
          Expires on (optional)
          <input type="date" value={expires} onInput={(e) => setExpires(e.currentTarget.value)} />
        </label>
      </div>
      {projects.data && projects.data.length > 0 && (
        <fieldset>
          <legend class="muted small">Only these projects (none ticked: all of yours)</legend>
          <div class="row">
            {projects.data.map((project) => (
              <label key={project.id} class="check">
                <input type="checkbox" checked={limitTo.includes(project.id)} onChange={(e) => toggle(project, e.currentTarget.checked)} />
                {project.name}
              </label>
            ))}
          </div>
        </fieldset>
      )}
      <ErrorNote error={error} />
      <button type="submit" class="primary" disabled={busy}>
        Create token
      </button>
    </form>
  );
}

function TokenRow({ token, projectNames, onRevoked }: { token: AccessToken; projectNames: Map<string, string>; onRevoked: () => void }) {
  const { busy, error, run } = useAction();
  const [confirming, setConfirming] = useState(false);
  const revoke = async () => {
    if (await run(() => client.tokens.revoke({ id: token.id }))) onRevoked();
  };
  const expired = token.expiresAt !== null && Date.parse(token.expiresAt) <= Date.now();
  return (
    <tr data-token-id={token.id}>
      <td>
        {token.name}
        {token.projectIds && <span class="muted small"> (only {token.projectIds.map((id) => projectNames.get(id) ?? 'a project no longer yours').join(', ')})</span>}
      </td>
      <td>{token.scopes.join(', ')}</td>
      <td>{token.lastUsedAt ? formatTime(token.lastUsedAt) : 'Never'}</td>
      <td>{token.expiresAt ? `${expired ? 'Expired ' : ''}${formatDay(token.expiresAt)}` : 'Never'}</td>
      <td>
        <ConfirmButton
          label="Revoke"
          question={`Revoke ${token.name}? Scripts using it stop working at once.`}
          confirmLabel="Revoke token"
          onConfirm={revoke}
          busy={busy}
          open={confirming}
          setOpen={setConfirming}
        />
        <ErrorNote error={error} />
      </td>
    </tr>
  );
}

function Sessions() {
  const sessions = useQuery(['sessions'], () => collect(client.paginate(client.sessions.list, { limit: 500 })));
  const { busy, error, run } = useAction();
  const [done, setDone] = useState<string | undefined>(undefined);
  const others = sessions.data?.filter((session) => !session.current) ?? [];
  const signOutOthers = async () => {
    const result = await run(() => client.sessions.revokeOthers({}));
    if (!result) return;
    setDone(result.message);
    sessions.setData((list) => list?.filter((session) => session.current));
  };
  return (
    <section class="stack" aria-labelledby="sessions-title">
      <h2 id="sessions-title">Sessions</h2>
      <p class="muted">Where you are signed in. Sign out any you do not recognise.</p>
      <ErrorNote error={sessions.error ?? error} />
      {done && (
        <p class="notice" role="status">
          {done}.
        </p>
      )}
      {sessions.loading && !sessions.data ? (
        <Loading what="your sessions" />
      ) : (
        <table class="members">
          <caption class="visually-hidden">Your sessions</caption>
          <thead>
            <tr>
              <th scope="col">Browser or app</th>
              <th scope="col">Address</th>
              <th scope="col">Signed in</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span class="visually-hidden">Sign out</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {sessions.data?.map((session) => (
              <SessionRow key={session.id} session={session} onEnded={() => sessions.setData((list) => list?.filter((item) => item.id !== session.id))} />
            ))}
          </tbody>
        </table>
      )}
      {others.length > 0 && (
        <button type="button" class="danger" disabled={busy} onClick={signOutOthers}>
          Sign out everywhere else
        </button>
      )}
    </section>
  );
}

function SessionRow({ session, onEnded }: { session: Session; onEnded: () => void }) {
  const { busy, error, run } = useAction();
  const end = async () => {
    if (await run(() => client.sessions.revoke({ id: session.id }))) onEnded();
  };
  return (
    <tr data-session-id={session.id}>
      <td>
        {session.userAgent ?? 'Unknown'}
        {session.method === 'oidc' && <span class="muted small"> (single sign-on)</span>}
        {session.current && <strong> (this browser)</strong>}
      </td>
      <td>{session.ip ?? '—'}</td>
      <td>{formatTime(session.createdAt)}</td>
      <td>{formatTime(session.lastUsedAt)}</td>
      <td>
        {!session.current && (
          <button type="button" disabled={busy} onClick={end}>
            Sign out
          </button>
        )}
        <ErrorNote error={error} />
      </td>
    </tr>
  );
}

const EMAIL_MODES = {
  instant: 'One email for each notification, within seconds',
  daily: 'One digest a day',
  off: 'No email',
} as const;

/** How notifications reach you by email (the server mails only when it has SMTP configured). */
function EmailSetting() {
  const settings = useQuery(['notification-settings'], () => client.notificationSettings.get());
  const { busy, error, run } = useAction();
  const [saved, setSaved] = useState(false);
  const choose = async (email: keyof typeof EMAIL_MODES) => {
    setSaved(false);
    const before = settings.data;
    settings.setData(() => ({ email }));
    const updated = await run(() => client.notificationSettings.update({ email }));
    settings.setData(() => updated ?? before);
    setSaved(Boolean(updated));
  };
  return (
    <section class="stack" aria-labelledby="email-title">
      <h2 id="email-title">Email notifications</h2>
      <ErrorNote error={settings.error ?? error} />
      {settings.data && (
        <fieldset class="stack" disabled={busy}>
          <legend class="visually-hidden">Email notifications</legend>
          {(Object.keys(EMAIL_MODES) as (keyof typeof EMAIL_MODES)[]).map((mode) => (
            <label key={mode} class="check">
              <input type="radio" name="email-mode" value={mode} checked={settings.data?.email === mode} onChange={() => void choose(mode)} />
              {EMAIL_MODES[mode]}
            </label>
          ))}
        </fieldset>
      )}
      {saved && (
        <p class="muted small" role="status">
          Saved.
        </p>
      )}
    </section>
  );
}

/**
 * Name, email and password. Email and password ask for the current password (the server refuses a
 * wrong one with 403 INVALID_CURRENT_PASSWORD, shown under the form). A new password signs every
 * session out, this one included, so the app goes to the login page and says why.
 */
function Profile() {
  const user = useCurrentUser();
  return (
    <section class="stack" aria-labelledby="profile-title">
      <h2 id="profile-title">Profile</h2>
      <NameForm key={`name-${user.name}`} current={user.name} />
      <EmailForm key={`email-${user.email}`} current={user.email} />
      <PasswordForm />
    </section>
  );
}

function NameForm({ current }: { current: string }) {
  const [name, setName] = useState(current);
  const { busy, error, run } = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const user = await run(() => client.auth.updateMe({ name: name.trim() }));
    if (!user) return;
    updateCurrentUser(user);
    announce('Name saved.');
  };
  return (
    <form class="card stack" onSubmit={submit} aria-label="Change your name">
      <label>
        Full name
        <input value={name} onInput={(e) => setName(e.currentTarget.value)} required maxLength={200} autoComplete="name" />
      </label>
      <ErrorNote error={error} />
      <button type="submit" class="primary" disabled={busy || name.trim() === current}>
        Save name
      </button>
    </form>
  );
}

function EmailForm({ current }: { current: string }) {
  const [email, setEmail] = useState(current);
  const [password, setPassword] = useState('');
  const { busy, error, run } = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const user = await run(() => client.auth.updateMe({ email: email.trim(), currentPassword: password }));
    if (!user) return;
    setPassword('');
    updateCurrentUser(user);
    announce(`Your email is now ${user.email}.`);
  };
  return (
    <form class="card stack" onSubmit={submit} aria-label="Change your email">
      <div class="row">
        <label class="grow">
          Email
          <input type="email" value={email} onInput={(e) => setEmail(e.currentTarget.value)} required autoComplete="email" />
        </label>
        <label class="grow">
          Current password
          <input type="password" value={password} onInput={(e) => setPassword(e.currentTarget.value)} required autoComplete="current-password" />
        </label>
      </div>
      <ErrorNote error={error} />
      <button type="submit" class="primary" disabled={busy || email.trim() === current}>
        Change email
      </button>
    </form>
  );
}

function PasswordForm() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const { busy, error, run } = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const user = await run(() => client.auth.updateMe({ password: next, currentPassword: current }));
    // Every session has ended, this one too: the next call would be a 401, so sign out now and say why.
    if (user) signOut(PASSWORD_CHANGED_NOTICE);
  };
  return (
    <form class="card stack" onSubmit={submit} aria-label="Change your password">
      <p class="muted small">A new password signs you out everywhere, this browser included; personal access tokens keep working.</p>
      <div class="row">
        <label class="grow">
          Current password
          <input type="password" value={current} onInput={(e) => setCurrent(e.currentTarget.value)} required autoComplete="current-password" />
        </label>
        <label class="grow">
          New password
          <input type="password" value={next} onInput={(e) => setNext(e.currentTarget.value)} required minLength={8} autoComplete="new-password" />
        </label>
      </div>
      <ErrorNote error={error} />
      <button type="submit" class="primary" disabled={busy}>
        Change password
      </button>
    </form>
  );
}

/**
 * The secret address of a calendar of your assigned, dated tasks. The server keeps only a digest, so
 * the address is shown right after it is made; making one again replaces it (the old one stops working).
 */
function CalendarFeed() {
  const status = useQuery(['calendar-feed'], () => client.calendarFeed.get());
  const [url, setUrl] = useState<string | undefined>(undefined);
  const [copied, setCopied] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const { busy, error, run } = useAction();
  const active = status.data?.active ?? false;
  const create = async () => {
    setCopied(false);
    const created = await run(() => client.calendarFeed.create({}));
    if (!created) return;
    setUrl(created.url);
    setConfirming(false);
    status.setData(() => ({ active: true, createdAt: new Date().toISOString() }));
    announce(active ? 'New calendar address made; the old one no longer works.' : 'Calendar address made.');
  };
  const turnOff = async () => {
    if (!(await run(() => client.calendarFeed.delete({})))) return;
    setUrl(undefined);
    setConfirming(false);
    status.setData(() => ({ active: false, createdAt: null }));
    announce('Calendar feed turned off.');
  };
  const copy = async () => {
    if (!url) return;
    try {
      await navigator.clipboard.writeText(url);
      setCopied(true);
    } catch {
      // No clipboard permission: the address is selected for a manual copy instead.
      document.querySelector<HTMLInputElement>('#calendar-feed-url')?.select();
    }
  };
  return (
    <section class="stack" aria-labelledby="calendar-feed-title">
      <h2 id="calendar-feed-title">Calendar feed</h2>
      <p class="muted">
        Subscribe to the tasks assigned to you that have a due date, in Google Calendar, Outlook or Apple Calendar. Anyone with the address can read that calendar, so keep it like a
        password.
      </p>
      <ErrorNote error={status.error ?? error} />
      {status.loading && !status.data ? (
        <Loading what="your calendar feed" />
      ) : (
        <>
          {!active && <p class="muted">You have no calendar feed. Make an address to subscribe to it.</p>}
          {active && !url && status.data?.createdAt && (
            <p class="muted">You have a calendar feed address, made {formatTime(status.data.createdAt)}. It is shown only once: make a new one to see an address (the old one then stops working).</p>
          )}
          {url && (
            <div class="card notice stack">
              <p>Copy this address now: it is not shown again.</p>
              <div class="row">
                <label class="grow">
                  Calendar address
                  <input id="calendar-feed-url" readOnly value={url} onFocus={(e) => e.currentTarget.select()} />
                </label>
                <button type="button" onClick={() => void copy()}>
                  Copy address
                </button>
              </div>
              {copied && <p class="muted small" role="status">Copied.</p>}
            </div>
          )}
          <div class="row">
            <button type="button" class={active ? '' : 'primary'} disabled={busy} onClick={() => void create()}>
              {active ? 'Replace the address' : 'Make a calendar address'}
            </button>
            {active && (
              <ConfirmButton
                label="Turn off the feed"
                question="Turn the calendar feed off? Calendars subscribed to it stop updating."
                confirmLabel="Turn off"
                onConfirm={() => void turnOff()}
                busy={busy}
                open={confirming}
                setOpen={setConfirming}
              />
            )}
          </div>
        </>
      )}
    </section>
  );
}
