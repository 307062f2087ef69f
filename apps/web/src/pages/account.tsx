import type { AccessToken, CreatedAccessToken, NotificationEmailMode, Project, Session, TokenScope } from '@tasklane/schemas';
import { useState } from 'preact/hooks';
import { collect, keys, loadProjects } from '../data';
import { formatDay, formatTime } from '../format';
import { t } from '../i18n';
import { useCurrentUser } from '../current-user';
import { useAction, useQuery } from '../hooks';
import { client, PASSWORD_CHANGED_NOTICE, signOut, updateCurrentUser } from '../session';
import { saveResponse } from '../download';
import { LanguageSetting } from './account-language';
import { announce, ConfirmButton, EnumOptions, ErrorNote, Loading, Page } from '../ui';

/** How a script sends a token: an HTTP header, spelled the same in every language. */
const BEARER_HEADER = 'Authorization: Bearer';

/** The scope menu's labels, in the language now (a function: the catalogue is read when the menu renders). */
const scopeLabels = (): Record<TokenScope, string> => ({
  read: t('account.newToken.scopes.read'),
  write: t('account.newToken.scopes.write'),
  admin: t('account.newToken.scopes.admin'),
});

/** The account page: profile, email settings, calendar feed, personal access tokens for scripts, and the sessions signed in. */
export function AccountPage() {
  return (
    <Page title={t('account.title')} narrow>
      <Profile />
      <LanguageSetting />
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
      <h2 id="my-data-title">{t('account.data.title')}</h2>
      <p class="muted">{t('account.data.intro')}</p>
      <ErrorNote error={error} />
      <div class="row">
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            void run(async () => {
              await saveResponse(await client.auth.exportMe(), 'tasklane-account.json');
              announce(t('account.data.downloading'));
            })
          }
        >
          {t('account.data.download')}
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
      <h2 id="tokens-title">{t('account.tokens.title')}</h2>
      <p class="muted">
        {t('account.tokens.introBefore')}
        <code>{BEARER_HEADER}</code>
        {t('account.tokens.introAfter')}
      </p>
      <NewToken
        onCreated={(token) => {
          setCreated(token);
          tokens.setData((list) => [token, ...(list ?? [])]);
        }}
      />
      {created && (
        <div class="card notice" role="status">
          <p>
            {t('account.tokens.createdBefore')}
            <strong>{created.name}</strong>
            {t('account.tokens.createdAfter')}
          </p>
          <label>
            {t('account.tokens.token')}
            <input readOnly value={created.token} onFocus={(e) => e.currentTarget.select()} />
          </label>
        </div>
      )}
      <ErrorNote error={tokens.error} />
      {tokens.loading && !tokens.data ? (
        <Loading what={t('account.tokens.loading')} />
      ) : tokens.data?.length === 0 ? (
        <p class="muted">{t('account.tokens.empty')}</p>
      ) : (
        <table class="members">
          <caption class="visually-hidden">{t('account.tokens.caption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('common.name')}</th>
              <th scope="col">{t('account.tokens.scopes')}</th>
              <th scope="col">{t('account.tokens.lastUsed')}</th>
              <th scope="col">{t('account.tokens.expires')}</th>
              <th scope="col">
                <span class="visually-hidden">{t('account.tokens.revoke')}</span>
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
    <form class="card stack" onSubmit={submit} aria-label={t('account.newToken.label')}>
      <div class="row">
        <label class="grow">
          {t('account.newToken.name')}
          <input value={name} onInput={(e) => setName(e.currentTarget.value)} required maxLength={100} />
        </label>
        <label>
          {t('account.newToken.scope')}
          <select value={scope} onChange={(e) => setScope(e.currentTarget.value as TokenScope)}>
            <EnumOptions labels={scopeLabels()} />
          </select>
        </label>
        <label>
          {t('account.newToken.expires')}
          <input type="date" value={expires} onInput={(e) => setExpires(e.currentTarget.value)} />
        </label>
      </div>
      {projects.data && projects.data.length > 0 && (
        <fieldset>
          <legend class="muted small">{t('account.newToken.projects')}</legend>
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
        {t('account.newToken.create')}
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
        {token.projectIds && (
          <span class="muted small">
            {t('account.tokens.onlyProjects', { projects: token.projectIds.map((id) => projectNames.get(id) ?? t('account.tokens.formerProject')).join(', ') })}
          </span>
        )}
      </td>
      {/* The scopes' own names, as the API and scripts spell them. */}
      <td>{token.scopes.join(', ')}</td>
      <td class="when">{token.lastUsedAt ? formatTime(token.lastUsedAt) : t('account.tokens.never')}</td>
      <td>{token.expiresAt ? (expired ? t('account.tokens.expiredOn', { day: formatDay(token.expiresAt) }) : formatDay(token.expiresAt)) : t('account.tokens.never')}</td>
      <td>
        <ConfirmButton
          label={t('account.tokens.revoke')}
          question={t('account.tokens.revokeQuestion', { name: token.name })}
          confirmLabel={t('account.tokens.revokeConfirm')}
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
  // How many were signed out, said in the language spoken (the server's message is English).
  const [done, setDone] = useState<number | undefined>(undefined);
  const others = sessions.data?.filter((session) => !session.current) ?? [];
  const signOutOthers = async () => {
    const result = await run(() => client.sessions.revokeOthers({}));
    if (!result) return;
    setDone(others.length);
    sessions.setData((list) => list?.filter((session) => session.current));
  };
  return (
    <section class="stack" aria-labelledby="sessions-title">
      <h2 id="sessions-title">{t('account.sessions.title')}</h2>
      <p class="muted">{t('account.sessions.intro')}</p>
      <ErrorNote error={sessions.error ?? error} />
      {done !== undefined && (
        <p class="notice" role="status">
          {t('account.sessions.done', { count: done })}
        </p>
      )}
      {sessions.loading && !sessions.data ? (
        <Loading what={t('account.sessions.loading')} />
      ) : (
        <table class="members">
          <caption class="visually-hidden">{t('account.sessions.caption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('account.sessions.browser')}</th>
              <th scope="col">{t('account.sessions.address')}</th>
              <th scope="col">{t('account.sessions.signedIn')}</th>
              <th scope="col">{t('account.sessions.lastUsed')}</th>
              <th scope="col">
                <span class="visually-hidden">{t('account.sessions.signOut')}</span>
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
          {t('account.sessions.signOutOthers')}
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
        {session.userAgent ?? t('account.sessions.unknown')}
        {session.method === 'oidc' && <span class="muted small">{t('account.sessions.singleSignOn')}</span>}
        {session.current && <strong>{t('account.sessions.thisBrowser')}</strong>}
      </td>
      <td>{session.ip ?? '—'}</td>
      <td class="when">{formatTime(session.createdAt)}</td>
      <td class="when">{formatTime(session.lastUsedAt)}</td>
      <td>
        {!session.current && (
          <button type="button" disabled={busy} onClick={end}>
            {t('account.sessions.signOut')}
          </button>
        )}
        <ErrorNote error={error} />
      </td>
    </tr>
  );
}

/** The choices in the order shown: most email first. */
const EMAIL_MODES: readonly NotificationEmailMode[] = ['instant', 'daily', 'off'];

/** How notifications reach you by email (the server mails only when it has SMTP configured). */
function EmailSetting() {
  const settings = useQuery(['notification-settings'], () => client.notificationSettings.get());
  const { busy, error, run } = useAction();
  const [saved, setSaved] = useState(false);
  const choose = async (email: NotificationEmailMode) => {
    setSaved(false);
    const before = settings.data;
    settings.setData(() => ({ email }));
    const updated = await run(() => client.notificationSettings.update({ email }));
    settings.setData(() => updated ?? before);
    setSaved(Boolean(updated));
  };
  return (
    <section class="stack" aria-labelledby="email-title">
      <h2 id="email-title">{t('account.notifications.title')}</h2>
      <ErrorNote error={settings.error ?? error} />
      {settings.data && (
        <fieldset class="stack" disabled={busy}>
          <legend class="visually-hidden">{t('account.notifications.title')}</legend>
          {EMAIL_MODES.map((mode) => (
            <label key={mode} class="check">
              <input type="radio" name="email-mode" value={mode} checked={settings.data?.email === mode} onChange={() => void choose(mode)} />
              {t(`account.notifications.modes.${mode}`)}
            </label>
          ))}
        </fieldset>
      )}
      {saved && (
        <p class="muted small" role="status">
          {t('account.notifications.saved')}
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
      <h2 id="profile-title">{t('account.profile.title')}</h2>
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
    announce(t('account.nameForm.saved'));
  };
  return (
    <form class="card stack" onSubmit={submit} aria-label={t('account.nameForm.label')}>
      <label>
        {t('account.nameForm.fullName')}
        <input value={name} onInput={(e) => setName(e.currentTarget.value)} required maxLength={200} autoComplete="name" />
      </label>
      <ErrorNote error={error} />
      <button type="submit" class="primary" disabled={busy || name.trim() === current}>
        {t('account.nameForm.save')}
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
    announce(t('account.emailForm.changed', { email: user.email }));
  };
  return (
    <form class="card stack" onSubmit={submit} aria-label={t('account.emailForm.label')}>
      <div class="row">
        <label class="grow">
          {t('common.email')}
          <input type="email" value={email} onInput={(e) => setEmail(e.currentTarget.value)} required autoComplete="email" />
        </label>
        <label class="grow">
          {t('account.currentPassword')}
          <input type="password" value={password} onInput={(e) => setPassword(e.currentTarget.value)} required autoComplete="current-password" />
        </label>
      </div>
      <ErrorNote error={error} />
      <button type="submit" class="primary" disabled={busy || email.trim() === current}>
        {t('account.emailForm.submit')}
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
    <form class="card stack" onSubmit={submit} aria-label={t('account.passwordForm.label')}>
      <p class="muted small">{t('account.passwordForm.note')}</p>
      <div class="row">
        <label class="grow">
          {t('account.currentPassword')}
          <input type="password" value={current} onInput={(e) => setCurrent(e.currentTarget.value)} required autoComplete="current-password" />
        </label>
        <label class="grow">
          {t('account.passwordForm.new')}
          <input type="password" value={next} onInput={(e) => setNext(e.currentTarget.value)} required minLength={8} autoComplete="new-password" />
        </label>
      </div>
      <ErrorNote error={error} />
      <button type="submit" class="primary" disabled={busy}>
        {t('account.passwordForm.submit')}
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
    announce(active ? t('account.calendar.replaced') : t('account.calendar.made'));
  };
  const turnOff = async () => {
    if (!(await run(() => client.calendarFeed.delete({})))) return;
    setUrl(undefined);
    setConfirming(false);
    status.setData(() => ({ active: false, createdAt: null }));
    announce(t('account.calendar.turnedOff'));
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
      <h2 id="calendar-feed-title">{t('account.calendar.title')}</h2>
      <p class="muted">{t('account.calendar.intro')}</p>
      <ErrorNote error={status.error ?? error} />
      {status.loading && !status.data ? (
        <Loading what={t('account.calendar.loading')} />
      ) : (
        <>
          {!active && <p class="muted">{t('account.calendar.none')}</p>}
          {active && !url && status.data?.createdAt && (
            <p class="muted">{t('account.calendar.active', { time: formatTime(status.data.createdAt) })}</p>
          )}
          {url && (
            <div class="card notice stack">
              <p>{t('account.calendar.copyNow')}</p>
              <div class="row">
                <label class="grow">
                  {t('account.calendar.address')}
                  <input id="calendar-feed-url" readOnly value={url} onFocus={(e) => e.currentTarget.select()} />
                </label>
                <button type="button" onClick={() => void copy()}>
                  {t('account.calendar.copy')}
                </button>
              </div>
              {copied && (
                <p class="muted small" role="status">
                  {t('account.calendar.copied')}
                </p>
              )}
            </div>
          )}
          <div class="row">
            <button type="button" class={active ? '' : 'primary'} disabled={busy} onClick={() => void create()}>
              {active ? t('account.calendar.replace') : t('account.calendar.make')}
            </button>
            {active && (
              <ConfirmButton
                label={t('account.calendar.turnOff')}
                question={t('account.calendar.turnOffQuestion')}
                confirmLabel={t('account.calendar.turnOffConfirm')}
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
