import type { AuthProviders } from '@tasklane/schemas';
import { useLocation } from 'preact-iso';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { useAction } from '../hooks';
import { t } from '../i18n';
import { client, describeError, signIn } from '../session';
import { ErrorNote } from '../ui';

/**
 * What the login page says when the server refused a single sign-on (by the reason it sent back),
 * in the language now; an unknown reason gets the general refusal.
 */
function ssoRefusal(reason: string): string {
  const refusals: Record<string, string> = {
    EMAIL_NOT_VERIFIED: t('auth.ssoRefusal.EMAIL_NOT_VERIFIED'),
    OIDC_SIGNUP_DISABLED: t('auth.ssoRefusal.OIDC_SIGNUP_DISABLED'),
    OIDC_EMAIL_MISSING: t('auth.ssoRefusal.OIDC_EMAIL_MISSING'),
    OIDC_STATE_MISMATCH: t('auth.ssoRefusal.OIDC_STATE_MISMATCH'),
    OIDC_CODE_REJECTED: t('auth.ssoRefusal.OIDC_CODE_REJECTED'),
    OIDC_DENIED: t('auth.ssoRefusal.OIDC_DENIED'),
    OIDC_UNAVAILABLE: t('auth.ssoRefusal.OIDC_UNAVAILABLE'),
  };
  return refusals[reason] ?? t('auth.ssoRefusal.other');
}

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
    if (result.error) setError(ssoRefusal(result.error));
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
      <h1>{t('auth.product')}</h1>
      <div class="card stack">
        <h2 id="auth-title">{registering ? t('auth.createAccount') : t('auth.logIn')}</h2>
        {notice && !error && (
          <p class="notice" role="status">
            {notice}
          </p>
        )}
        {providers?.oidc && (
          <a class="button primary" href="/api/v1/auth/oidc/login" onClick={rememberSignOnStart}>
            {t('auth.signInWith', { provider: providers.oidc.name })}
          </a>
        )}
        {passwordOn && (
          <form onSubmit={submit} class="stack" aria-labelledby="auth-title">
            {registering && (
              <label>
                {t('auth.fullName')}
                <input value={name} onInput={(e) => setName(e.currentTarget.value)} required autoComplete="name" />
              </label>
            )}
            <label>
              {t('common.email')}
              <input type="email" value={email} onInput={(e) => setEmail(e.currentTarget.value)} required autoComplete="email" />
            </label>
            <label>
              {t('common.password')}
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
              {registering ? t('auth.register') : t('auth.logIn')}
            </button>
          </form>
        )}
        {!passwordOn && <ErrorNote error={error} />}
        {passwordOn && (
          <p>
            {registering ? (
              <>
                {t('auth.haveAccount')} <SwitchLink to="login" label={t('auth.logIn')} onSwitchMode={onSwitchMode} />
              </>
            ) : (
              <>
                {t('auth.newHere')} <SwitchLink to="register" label={t('auth.createAccount')} onSwitchMode={onSwitchMode} />
                {providers?.passwordReset && (
                  <>
                    {' · '}
                    <a href="/forgot-password">{t('auth.forgotPassword')}</a>
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
