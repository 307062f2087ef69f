import { useState } from 'preact/hooks';
import { useAction } from '../hooks';
import { t } from '../i18n';
import { client } from '../session';
import { ErrorNote } from '../ui';

/** "Forgot password": asks for the email; the server answers the same whether or not it has an account. */
export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  // Said in the language spoken: the server's answer (the same whatever the email) is English.
  const [sent, setSent] = useState(false);
  const { busy, error, run } = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const result = await run(() => client.auth.requestPasswordReset({ email }));
    if (result) setSent(true);
  };
  return (
    <main id="main" class="auth">
      <h1>{t('passwordReset.product')}</h1>
      <form onSubmit={submit} class="card stack" aria-labelledby="forgot-title">
        <h2 id="forgot-title">{t('passwordReset.forgot.title')}</h2>
        {sent ? (
          <p class="notice" role="status">
            {t('passwordReset.forgot.sent')}
          </p>
        ) : (
          <>
            <p class="muted">{t('passwordReset.forgot.intro')}</p>
            <label>
              {t('common.email')}
              <input type="email" value={email} onInput={(e) => setEmail(e.currentTarget.value)} required autoComplete="email" />
            </label>
            <ErrorNote error={error} />
            <button type="submit" class="primary" disabled={busy}>
              {t('passwordReset.forgot.send')}
            </button>
          </>
        )}
        <p>
          <a href="/login">{t('passwordReset.forgot.back')}</a>
        </p>
      </form>
    </main>
  );
}

/** The emailed link's page: its code comes in the address's fragment (never sent to a server). */
export function ResetPasswordPage() {
  const [token] = useState(() => new URLSearchParams(window.location.hash.slice(1)).get('token') ?? '');
  const [password, setPassword] = useState('');
  const [done, setDone] = useState(false);
  const { busy, error, run } = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const result = await run(() => client.auth.confirmPasswordReset({ token, password }));
    if (result) setDone(true);
  };
  return (
    <main id="main" class="auth">
      <h1>{t('passwordReset.product')}</h1>
      <form onSubmit={submit} class="card stack" aria-labelledby="reset-title">
        <h2 id="reset-title">{t('passwordReset.reset.title')}</h2>
        {done ? (
          <p class="notice" role="status">
            {t('passwordReset.reset.done')}
          </p>
        ) : !token ? (
          <p class="error" role="alert">
            {t('passwordReset.reset.noCode')}
          </p>
        ) : (
          <>
            <label>
              {t('passwordReset.reset.newPassword')}
              <input type="password" value={password} onInput={(e) => setPassword(e.currentTarget.value)} required minLength={6} autoComplete="new-password" />
            </label>
            <ErrorNote error={error} />
            <button type="submit" class="primary" disabled={busy}>
              {t('passwordReset.reset.submit')}
            </button>
          </>
        )}
        <p>
          <a href="/login">{t('passwordReset.reset.logIn')}</a>
          {' · '}
          <a href="/forgot-password">{t('passwordReset.reset.newLink')}</a>
        </p>
      </form>
    </main>
  );
}
