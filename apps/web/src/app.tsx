import type { User } from '@tasklane/schemas';
import { LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { useEffect, useState } from 'preact/hooks';
import { CurrentUser } from './current-user';
import { AccountPage } from './pages/account';
import { AuthPage } from './pages/auth';
import { BoardPage } from './pages/board';
import { MembersPage } from './pages/members';
import { MyTasksPage } from './pages/my-tasks';
import { ForgotPasswordPage, ResetPasswordPage } from './pages/password-reset';
import { ProjectsPage } from './pages/projects';
import { client, describeError, hasStoredToken, onSessionChange, signOut } from './session';
import { Loading } from './ui';

const AUTH_PATHS = ['/login', '/register'];

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

  useEffect(
    () =>
      onSessionChange((next, message) => {
        setUser(next);
        setNotice(message);
        if (!next) route('/login');
        else if (AUTH_PATHS.includes(window.location.pathname)) route('/');
      }),
    [route],
  );

  // A stored token is checked once: still valid → signed in; expired → the login page says so.
  useEffect(() => {
    if (!hasStoredToken()) return;
    client.auth
      .me()
      .then(setUser, (error: unknown) => {
        // A 401 has already signed out with the "session expired" notice; anything else is shown as is.
        const message = describeError(error);
        if (hasStoredToken()) setNotice(message);
      })
      .finally(() => setChecking(false));
  }, []);

  // Reachable signed in or not: a reset link may be opened anywhere.
  if (path === '/forgot-password') return <ForgotPasswordPage />;
  if (path === '/reset-password') return <ResetPasswordPage />;
  if (checking) return <Loading what="your session" />;
  if (!user) {
    const mode = path === '/register' ? 'register' : 'login';
    return <AuthPage mode={mode} notice={notice} />;
  }
  return (
    <CurrentUser.Provider value={user}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="/">
          Tasklane
        </a>
        <nav aria-label="Main">
          <a href="/" aria-current={path === '/' ? 'page' : undefined}>
            Projects
          </a>
          <a href="/my-tasks" aria-current={path === '/my-tasks' ? 'page' : undefined}>
            My tasks
          </a>
          <a href="/account" aria-current={path === '/account' ? 'page' : undefined}>
            Account
          </a>
        </nav>
        <span class="who">{user.name}</span>
        <button type="button" onClick={() => signOut()}>
          Log out
        </button>
      </header>
      <Router>
        <Route path="/" component={ProjectsPage} />
        <Route path="/my-tasks" component={MyTasksPage} />
        <Route path="/account" component={AccountPage} />
        <Route path="/projects/:projectId" component={BoardPage} />
        <Route path="/projects/:projectId/tasks/:taskId" component={BoardPage} />
        <Route path="/projects/:projectId/members" component={MembersPage} />
        <Route default component={ProjectsPage} />
      </Router>
    </CurrentUser.Provider>
  );
}
