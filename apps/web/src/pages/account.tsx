import type { AccessToken, CreatedAccessToken, Project, Session, TokenScope } from '@tasklane/schemas';
import { useState } from 'preact/hooks';
import { collect, keys, loadProjects } from '../data';
import { formatDay, formatTime } from '../format';
import { useAction, useQuery } from '../hooks';
import { client } from '../session';
import { ConfirmButton, EnumOptions, ErrorNote, Loading, Page } from '../ui';

const SCOPE_LABELS = {
  read: 'Read: look, change nothing',
  write: 'Write: also create and change tasks and comments',
  admin: 'Admin: everything you may do',
} as const satisfies Record<TokenScope, string>;

/** The account page: personal access tokens for scripts, and the sessions signed in. */
export function AccountPage() {
  return (
    <Page title="Account">
      <EmailSetting />
      <Tokens />
      <Sessions />
    </Page>
  );
}

function Tokens() {
  const tokens = useQuery(['tokens'], () => collect(client.paginate(client.tokens.list, { limit: 500 })));
  const [created, setCreated] = useState<CreatedAccessToken | undefined>(undefined);
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
        <p class="muted">No tokens yet.</p>
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
              <TokenRow key={token.id} token={token} onRevoked={() => tokens.setData((list) => list?.filter((item) => item.id !== token.id))} />
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

function TokenRow({ token, onRevoked }: { token: AccessToken; onRevoked: () => void }) {
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
        {token.projectIds && <span class="muted small"> ({token.projectIds.length} project{token.projectIds.length === 1 ? '' : 's'})</span>}
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
