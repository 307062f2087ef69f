import type { AuthProviders } from '@tasklane/schemas';
import { useLocation } from 'preact-iso';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { useAction } from '../hooks';
import { client, describeError, signIn } from '../session';
import { ErrorNote } from '../ui';

/** What the login page says when the server refused a single sign-on (by the reason it sent back). */
const SSO_REFUSALS: Record<string, string> = {
  EMAIL_NOT_VERIFIED:
    'An account with your email exists, but your identity provider does not confirm the email is verified, so the two were not linked. Log in with your password, or verify the email with your provider.',
  OIDC_SIGNUP_DISABLED: 'There is no account with your email, and this server does not create one on sign-on. Ask an administrator.',
  OIDC_EMAIL_MISSING: 'Your identity provider did not share an email address.',
  OIDC_STATE_MISMATCH: 'The sign-on took too long or was started in another browser. Please try again.',
  OIDC_CODE_REJECTED: 'The identity provider did not accept the sign-on. Please try again.',
  OIDC_DENIED: 'The sign-on was cancelled at the identity provider.',
  OIDC_UNAVAILABLE: 'The identity provider cannot be reached right now. Please try again shortly.',
};

/** The single sign-on result the server left in the address (`#sso=…` or `#sso_error=…`), taken out of it. */
function takeSignOnResult(): { code?: string; error?: string } {
  const hash = new URLSearchParams(window.location.hash.slice(1));
  const code = hash.get('sso') ?? undefined;
  const error = hash.get('sso_error') ?? undefined;
  if (code || error) window.history.replaceState(null, '', window.location.pathname);
  return { ...(code ? { code } : {}), ...(error ? { error } : {}) };
}

/**
 * Where a single sign-on started from an invitation's page returns to: the provider sends every
 * sign-on back to `/login`, so the invitation's address is kept in this tab (sessionStorage) while
 * the person is at the provider. Only an `/invite/…` path is kept or followed.
 */
const SSO_RETURN_KEY = 'tasklane.sso.return';
const isInvitePath = (path: string | null): path is string => path !== null && /^\/invite\/[\w-]+$/.test(path);

function rememberSignOnStart() {
  if (isInvitePath(window.location.pathname)) window.sessionStorage.setItem(SSO_RETURN_KEY, window.location.pathname);
  else window.sessionStorage.removeItem(SSO_RETURN_KEY);
}

/** The invitation's path a sign-on started from, once: taken out of storage whatever the sign-on's outcome. */
function takeSignOnReturn(): string | undefined {
  const path = window.sessionStorage.getItem(SSO_RETURN_KEY);
  window.sessionStorage.removeItem(SSO_RETURN_KEY);
  return isInvitePath(path) ? path : undefined;
}

/** Log in or register; both sign in at once and keep the token for the next visit. Single sign-on when the server offers it. */
export function AuthPage({ mode, notice, onSwitchMode }: { mode: 'login' | 'register'; notice: string | undefined; onSwitchMode?: (mode: 'login' | 'register') => void }) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [providers, setProviders] = useState<AuthProviders | undefined>(undefined);
  const { busy, error, setError, run, reset } = useAction();
  const { route } = useLocation();
  const registering = mode === 'register';

  // The other form starts clean (issue 39): the page stays mounted across /login ⇄ /register and an
  // invitation's switch, and a failed login's error and typed email and password showed on the new form.
  const shownMode = useRef(mode);
  useLayoutEffect(() => {
    if (shownMode.current === mode) return;
    shownMode.current = mode;
    setName('');
    setEmail('');
    setPassword('');
    // A login still on its way can no longer show its refusal on the new form.
    reset();
  }, [mode]);

  useEffect(() => {
    client.auth.providers().then(setProviders, (failure: unknown) => setError(describeError(failure)));
    const result = takeSignOnResult();
    // Back from the provider: an invitation's page it started from is returned to after a sign-in, forgotten after a refusal.
    const back = result.code || result.error ? takeSignOnReturn() : undefined;
    if (result.error) setError(SSO_REFUSALS[result.error] ?? 'The sign-on did not succeed. Please try again.');
    if (result.code) {
      void run(() => client.sso.exchange({ code: result.code! })).then((session) => {
        if (!session) return;
        signIn(session.access_token, session.user);
        // After signIn, which leaves /login for the projects: the invitation's page then accepts it.
        if (back) route(back, true);
      });
    }
  }, []);

  const submit = async (event: Event) => {
    event.preventDefault();
    const result = await run(() =>
      registering ? client.auth.register({ name, email, password }) : client.auth.login({ email, password }),
    );
    if (result) signIn(result.access_token, result.user);
  };

  const passwordOn = providers?.password ?? true;
  return (
    <main id="main" class="auth">
      <h1>Tasklane</h1>
      <div class="card stack">
        <h2 id="auth-title">{registering ? 'Create an account' : 'Log in'}</h2>
        {notice && !error && (
          <p class="notice" role="status">
            {notice}
          </p>
        )}
        {providers?.oidc && (
          <a class="button primary" href="/api/v1/auth/oidc/login" onClick={rememberSignOnStart}>
            Sign in with {providers.oidc.name}
          </a>
        )}
        {passwordOn && (
          <form onSubmit={submit} class="stack" aria-labelledby="auth-title">
            {registering && (
              <label>
                Full name
                <input value={name} onInput={(e) => setName(e.currentTarget.value)} required autoComplete="name" />
              </label>
            )}
            <label>
              Email
              <input type="email" value={email} onInput={(e) => setEmail(e.currentTarget.value)} required autoComplete="email" />
            </label>
            <label>
              Password
              <input
                type="password"
                value={password}
                onInput={(e) => setPassword(e.currentTarget.value)}
                required
                minLength={registering ? 6 : undefined}
                autoComplete={registering ? 'new-password' : 'current-password'}
              />
            </label>
            <ErrorNote error={error} />
            <button type="submit" class="primary" disabled={busy}>
              {registering ? 'Register' : 'Log in'}
            </button>
          </form>
        )}
        {!passwordOn && <ErrorNote error={error} />}
        {passwordOn && (
          <p>
            {registering ? (
              <>
                Have an account? <SwitchLink to="login" label="Log in" onSwitchMode={onSwitchMode} />
              </>
            ) : (
              <>
                New here? <SwitchLink to="register" label="Create an account" onSwitchMode={onSwitchMode} />
                {providers?.passwordReset && (
                  <>
                    {' · '}
                    <a href="/forgot-password">Forgot your password?</a>
                  </>
                )}
              </>
            )}
          </p>
        )}
      </div>
    </main>
  );
}

/** To the other form: a link to its page, or, where the address must stay (an invitation's link), a switch in place. */
function SwitchLink({ to, label, onSwitchMode }: { to: 'login' | 'register'; label: string; onSwitchMode: ((mode: 'login' | 'register') => void) | undefined }) {
  if (!onSwitchMode) return <a href={`/${to}`}>{label}</a>;
  return (
    <button type="button" class="link" onClick={() => onSwitchMode(to)}>
      {label}
    </button>
  );
}
