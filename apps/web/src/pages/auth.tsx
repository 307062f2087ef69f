import { useState } from 'preact/hooks';
import { useAction } from '../hooks';
import { client, signIn } from '../session';
import { ErrorNote } from '../ui';

/** Log in or register; both sign in at once and keep the token for the next visit. */
export function AuthPage({ mode, notice }: { mode: 'login' | 'register'; notice: string | undefined }) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, run } = useAction();
  const registering = mode === 'register';

  const submit = async (event: Event) => {
    event.preventDefault();
    const result = await run(() =>
      registering ? client.auth.register.mutate({ name, email, password }) : client.auth.login.mutate({ email, password }),
    );
    if (result) signIn(result.access_token, result.user);
  };

  return (
    <main id="main" class="auth">
      <h1>Tasklane</h1>
      <form onSubmit={submit} class="card stack" aria-labelledby="auth-title">
        <h2 id="auth-title">{registering ? 'Create an account' : 'Log in'}</h2>
        {notice && !error && (
          <p class="notice" role="status">
            {notice}
          </p>
        )}
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
        <p>
          {registering ? (
            <>
              Have an account? <a href="/login">Log in</a>
            </>
          ) : (
            <>
              New here? <a href="/register">Create an account</a>
            </>
          )}
        </p>
      </form>
    </main>
  );
}
