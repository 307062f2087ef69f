import type { User } from '@tasklane/schemas';
import { lazy, LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { CurrentUser } from './current-user';
import { AuthPage } from './pages/auth';
import { Bell, InboxPage, useNotificationStream } from './pages/inbox';
import { ForgotPasswordPage, ResetPasswordPage } from './pages/password-reset';
import { ProjectsPage } from './pages/projects';
import { NEW_TASK_EVENT } from './shortcuts';
import { TimerIndicator, useTimerCommands } from './timer';
import { client, describeError, hasStoredToken, isUnreachable, onSessionChange, signOut, updateCurrentUser } from './session';
import { rememberedUser } from './offline';
import { queryClient } from './hooks';
import { useOnline } from './live';
import { type Command, CommandPalette, ShortcutHelp, useGlobalKeys } from './palette';
import { useTheme } from './theme';
import { followAccountLocale, t, useLocale } from './i18n';
import { Announcements, Loading } from './ui';

const AUTH_PATHS = ['/login', '/register'];

/*
 * Each page beyond the projects list, the inbox and the sign-in forms is a chunk of its own, read
 * when it is first opened (the router shows the page before until it is): the app's first load
 * carries the shell, not every screen. The service worker precaches them all for offline use.
 */
const AccountPage = lazy(() => import('./pages/account').then((page) => page.AccountPage));
const BoardPage = lazy(() => import('./pages/board').then((page) => page.BoardPage));
const CalendarPage = lazy(() => import('./pages/calendar').then((page) => page.CalendarPage));
const ImportPage = lazy(() => import('./pages/import').then((page) => page.ImportPage));
const InvitePage = lazy(() => import('./pages/invite').then((page) => page.InvitePage));
const MembersPage = lazy(() => import('./pages/members').then((page) => page.MembersPage));
const MyTasksPage = lazy(() => import('./pages/my-tasks').then((page) => page.MyTasksPage));
const TaskByKeyPage = lazy(() => import('./pages/task-by-key').then((page) => page.TaskByKeyPage));
const TimeReportPage = lazy(() => import('./pages/time-report').then((page) => page.TimeReportPage));
const TimelinePage = lazy(() => import('./pages/timeline').then((page) => page.TimelinePage));
const ViewPage = lazy(() => import('./pages/view').then((page) => page.ViewPage));
const WebhooksPage = lazy(() => import('./pages/webhooks').then((page) => page.WebhooksPage));

/** Counts the overlays opened (palette, shortcuts), to tell one from the next. */
let overlays = 0;

/** Links into the API (single sign-on) leave the app: the router handles every other path. */
const APP_PATHS = /^\/(?!api\/)/;

export function App() {
  return (
    <LocationProvider scope={APP_PATHS}>
      <Session />
    </LocationProvider>
  );
}

function Session() {
  const { route, path } = useLocation();
  const [user, setUser] = useState<User | null>(null);
  const [checking, setChecking] = useState(hasStoredToken());
  const [notice, setNotice] = useState<string | undefined>(undefined);
  // Each opening is a new overlay (its own id): a closing one clears only itself, since the next may
  // already be open (Esc or a choice, then Ctrl K at once, before the old dialog's close event).
  const [overlay, setOverlayState] = useState<{ kind: 'palette' | 'help'; id: number } | undefined>(undefined);
  const setOverlay = (kind: 'palette' | 'help') => setOverlayState({ kind, id: ++overlays });
  const closeOverlay = (id: number) => () => setOverlayState((open) => (open?.id === id ? undefined : open));
  const [theme, toggleTheme] = useTheme();
  const online = useOnline();
  const locale = useLocale();
  useGlobalKeys((which) => user && setOverlay(which));
  const projectId = /^\/projects\/([^/]+)/.exec(path)?.[1];
  const timerCommands = useTimerCommands(/^\/projects\/[^/]+\/tasks\/([^/]+)/.exec(path)?.[1]);
  const actions = useMemo<Command[]>(
    () => [
      ...(projectId
        ? [
            { id: 'new-task', label: t('app.commands.newTask'), group: 'Actions' as const, run: () => window.dispatchEvent(new Event(NEW_TASK_EVENT)) },
            { id: 'board', label: t('app.commands.board'), group: 'Actions' as const, run: () => route(`/projects/${projectId}`) },
            { id: 'list', label: t('app.commands.list'), group: 'Actions' as const, run: () => route(`/projects/${projectId}/list`) },
            { id: 'calendar', label: t('app.commands.calendar'), group: 'Actions' as const, run: () => route(`/projects/${projectId}/calendar`) },
            { id: 'members', label: t('app.commands.members'), group: 'Actions' as const, run: () => route(`/projects/${projectId}/members`) },
          ]
        : []),
      ...timerCommands,
      { id: 'projects', label: t('app.commands.projects'), group: 'Actions', run: () => route('/') },
      { id: 'my-tasks', label: t('app.commands.myTasks'), group: 'Actions', run: () => route('/my-tasks') },
      { id: 'account', label: t('app.commands.account'), group: 'Actions', run: () => route('/account') },
      { id: 'inbox', label: t('app.commands.inbox'), group: 'Actions', run: () => route('/inbox') },
      { id: 'import', label: t('app.commands.import'), group: 'Actions', run: () => route('/import') },
      { id: 'theme', label: theme === 'dark' ? t('app.commands.lightTheme') : t('app.commands.darkTheme'), group: 'Actions', run: toggleTheme },
      { id: 'help', label: t('app.commands.help'), group: 'Actions', run: () => setTimeout(() => setOverlay('help')) },
    ],
    [projectId, theme, timerCommands, locale],
  );

  // The account's language wins over this browser's: read with the user (GET /auth/me), or asked once after a sign-in (whose answer carries no language).
  useEffect(() => {
    if (!user) return;
    if ('locale' in user) void followAccountLocale(user.locale);
    else void client.auth.me().then((me) => followAccountLocale(me.locale), () => undefined);
  }, [user?.id]);

  useEffect(
    () =>
      onSessionChange((next, message) => {
        setUser(next);
        setNotice(message);
        if (!next) queryClient.clear();
        if (!next) route('/login');
        else if (AUTH_PATHS.includes(window.location.pathname)) route('/');
      }),
    [route],
  );

  // A stored token is checked once: still valid → signed in; expired → the login page says so;
  // the server out of reach → signed in as the offline copy's person, to see what it holds.
  useEffect(() => {
    if (!hasStoredToken()) return;
    client.auth
      .me()
      .then(updateCurrentUser, (error: unknown) => {
        const remembered = rememberedUser();
        if (remembered && isUnreachable(error)) return updateCurrentUser(remembered);
        // A 401 has already signed out with the "session expired" notice; anything else is shown as is.
        const message = describeError(error);
        if (hasStoredToken()) setNotice(message);
      })
      .finally(() => setChecking(false));
  }, []);

  // Reachable signed in or not: a reset link may be opened anywhere.
  if (path === '/forgot-password') return <ForgotPasswordPage />;
  if (path === '/reset-password') return <ResetPasswordPage />;
  if (checking) return <Loading what={t('app.session')} />;
  if (!user) {
    // An invitation's link, signed out: sign in or create an account on the same address, which then accepts it.
    if (path.startsWith('/invite/')) return <InviteSignIn notice={notice} />;
    const mode = path === '/register' ? 'register' : 'login';
    return <AuthPage mode={mode} notice={notice} />;
  }
  return (
    <CurrentUser.Provider value={user}>
      <a class="skip" href="#main">
        {t('app.skip')}
      </a>
      <header class="top">
        <a class="brand" href="/">
          Tasklane
        </a>
        <nav aria-label={t('app.nav.label')}>
          <a href="/" aria-current={path === '/' ? 'page' : undefined}>
            {t('app.nav.projects')}
          </a>
          <a href="/my-tasks" aria-current={path === '/my-tasks' ? 'page' : undefined}>
            {t('app.nav.myTasks')}
          </a>
          <a href="/account" aria-current={path === '/account' ? 'page' : undefined}>
            {t('app.nav.account')}
          </a>
        </nav>
        <TimerIndicator />
        <Bell current={path === '/inbox'} />
        <button type="button" class="palette-button" onClick={() => setOverlay('palette')} aria-keyshortcuts="Control+K Meta+K">
          {t('app.search')} <kbd>Ctrl K</kbd>
        </button>
        <button type="button" onClick={toggleTheme} aria-pressed={theme === 'dark'}>
          {t('app.darkTheme')}
        </button>
        <span class="who">{user.name}</span>
        <button type="button" onClick={() => signOut()}>
          {t('app.logOut')}
        </button>
      </header>
      {!online && (
        <p class="offline-banner" role="status">
          {t('app.offline')}
        </p>
      )}
      <Announcements />
      <NotificationStream />
      {/* A new language renders the page anew (its state and memos were made in the old one). */}
      <Router key={locale}>
        <Route path="/" component={ProjectsPage} />
        <Route path="/my-tasks" component={MyTasksPage} />
        <Route path="/account" component={AccountPage} />
        <Route path="/inbox" component={InboxPage} />
        <Route path="/import" component={ImportPage} />
        <Route path="/projects/:projectId" component={BoardPage} />
        <Route path="/projects/:projectId/list" component={ListPage} />
        <Route path="/projects/:projectId/tasks/:taskId" component={BoardPage} />
        <Route path="/projects/:projectId/members" component={MembersPage} />
        <Route path="/projects/:projectId/webhooks" component={WebhooksPage} />
        <Route path="/projects/:projectId/time" component={TimeReportPage} />
        <Route path="/projects/:projectId/timeline" component={TimelinePage} />
        <Route path="/projects/:projectId/calendar" component={CalendarPage} />
        <Route path="/projects/:projectId/views/:viewId" component={ViewPage} />
        <Route path="/tasks/:key" component={TaskByKeyPage} />
        <Route path="/invite/:token" component={InvitePage} />
        <Route default component={ProjectsPage} />
      </Router>
      {overlay?.kind === 'palette' && <CommandPalette key={overlay.id} actions={actions} onClose={closeOverlay(overlay.id)} />}
      {overlay?.kind === 'help' && <ShortcutHelp key={overlay.id} onClose={closeOverlay(overlay.id)} />}
    </CurrentUser.Provider>
  );
}

/** The sign-in and registration forms for an invitation's link: switching between them keeps the address. */
function InviteSignIn({ notice }: { notice: string | undefined }) {
  const [mode, setMode] = useState<'login' | 'register'>('register');
  return <AuthPage mode={mode} notice={notice ?? t('app.invited')} onSwitchMode={setMode} />;
}

const ListPage = ({ params }: { params: { projectId: string } }) => <BoardPage params={params} view="list" />;

/** Follows the signed-in person's notifications while the app is open (renders nothing). */
function NotificationStream() {
  useNotificationStream();
  return null;
}
