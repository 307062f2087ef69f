import { useState } from 'preact/hooks';
import { useAction } from '../hooks';
import { client } from '../session';
import { ErrorNote } from '../ui';

/** "Forgot password": asks for the email; the server answers the same whether or not it has an account. */
export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState<string | undefined>(undefined);
  const { busy, error, run } = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const result = await run(() => client.auth.requestPasswordReset({ email }));
    if (result) setSent(result.message);
  };
  return (
    <main id="main" class="auth">
      <h1>Tasklane</h1>
      <form onSubmit={submit} class="card stack" aria-labelledby="forgot-title">
        <h2 id="forgot-title">Reset your password</h2>
        {sent ? (
          <p class="notice" role="status">
            {sent}. The link works once, for 30 minutes.
          </p>
        ) : (
          <>
            <p class="muted">Enter your account’s email: we send it a link to choose a new password.</p>
            <label>
              Email
              <input type="email" value={email} onInput={(e) => setEmail(e.currentTarget.value)} required autoComplete="email" />
            </label>
            <ErrorNote error={error} />
            <button type="submit" class="primary" disabled={busy}>
              Send the link
            </button>
          </>
        )}
        <p>
          <a href="/login">Back to log in</a>
        </p>
      </form>
    </main>
  );
}

/** The emailed link's page: its code comes in the address's fragment (never sent to a server). */
export function ResetPasswordPage() {
  const [token] = useState(() => new URLSearchParams(window.location.hash.slice(1)).get('token') ?? '');
  const [password, setPassword] = useState('');
  const [done, setDone] = useState<string | undefined>(undefined);
  const { busy, error, run } = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const result = await run(() => client.auth.confirmPasswordReset({ token, password }));
    if (result) setDone(result.message);
  };
  return (
    <main id="main" class="auth">
      <h1>Tasklane</h1>
      <form onSubmit={submit} class="card stack" aria-labelledby="reset-title">
        <h2 id="reset-title">Choose a new password</h2>
        {done ? (
          <p class="notice" role="status">
            {done}. You were signed out everywhere.
          </p>
        ) : !token ? (
          <p class="error" role="alert">
            This address holds no reset code: open the link from the email again, or ask for a new one.
          </p>
        ) : (
          <>
            <label>
              New password
              <input type="password" value={password} onInput={(e) => setPassword(e.currentTarget.value)} required minLength={6} autoComplete="new-password" />
            </label>
            <ErrorNote error={error} />
            <button type="submit" class="primary" disabled={busy}>
              Set the password
            </button>
          </>
        )}
        <p>
          <a href="/login">Log in</a>
          {' · '}
          <a href="/forgot-password">Ask for a new link</a>
        </p>
      </form>
    </main>
  );
}
