import { createServer, type Server } from 'node:http';
import { parseSetCookie } from 'cookie';
import Provider from 'oidc-provider';

/** What the provider says of a person: `sub` and the claims of the email and profile scopes. */
export interface ProviderAccount {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
}

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The person the provider signs in at the next authorization request (no login form). */
  signInAs(account: ProviderAccount): void;
  close(): Promise<void>;
}

/**
 * A real OpenID provider (oidc-provider) on a loopback port, with one confidential client whose
 * redirect URI is `redirectUri`. Its interaction step signs in whoever `signInAs` named and grants
 * the requested scopes, as a person clicking through a login page would.
 */
export async function startOidcProvider(redirectUri: string): Promise<TestOidcProvider> {
  const clientId = 'tasklane';
  const clientSecret = 'provider-client-secret-4f1a9c';
  let current: ProviderAccount | undefined;
  const accounts = new Map<string, ProviderAccount>();
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const issuer = `http://127.0.0.1:${port}`;

  const provider = new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri], grant_types: ['authorization_code'], response_types: ['code'] }],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    findAccount: (_context, id) => {
      const account = accounts.get(id);
      return account ? { accountId: id, claims: () => ({ ...account }) } : undefined;
    },
    pkce: { required: () => true },
    interactions: { url: (_context, interaction) => `/interaction/${interaction.uid}` },
    features: { devInteractions: { enabled: false } },
    cookies: { keys: ['test-provider-cookie-key-8d3b'] },
    ttl: { Session: 600, Interaction: 600, Grant: 600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
  });
  const handle = provider.callback();
  server.on('request', (request, response) => {
    if (!request.url?.startsWith('/interaction/')) return handle(request, response);
    void (async () => {
      const details = await provider.interactionDetails(request, response);
      if (!current) throw new Error('signInAs was not called before the sign-on');
      accounts.set(current.sub, current);
      const grant = new provider.Grant({ accountId: current.sub, clientId: String(details.params.client_id) });
      grant.addOIDCScope(String(details.params.scope));
      const grantId = (await grant.save())!;
      await provider.interactionFinished(request, response, { login: { accountId: current.sub }, consent: { grantId } }, { mergeWithLastSubmission: false });
    })().catch((error: unknown) => {
      response.statusCode = 500;
      response.end(String(error));
    });
  });

  return {
    issuer,
    clientId,
    clientSecret,
    signInAs(account) {
      current = account;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Cookies of one client: what Set-Cookie headers gave, as a Cookie header. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  take(setCookie: string | string[] | undefined): void {
    for (const line of Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : []) {
      const { name, value, maxAge, expires } = parseSetCookie(line);
      if (!value || maxAge === 0 || (expires !== undefined && expires.getTime() <= Date.now())) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/**
 * A browser's way through the provider: follows its redirects (keeping its cookies) from the
 * authorization URL until it sends the browser to `redirectUri`; returns that address.
 */
export async function throughProvider(authorizationUrl: string, redirectUri: string): Promise<URL> {
  const jar = new CookieJar();
  let next = authorizationUrl;
  for (let hop = 0; hop < 10; hop += 1) {
    const response = await fetch(next, { redirect: 'manual', headers: { cookie: jar.header() } });
    jar.take(response.headers.getSetCookie());
    const location = response.headers.get('location');
    if (!location) throw new Error(`the provider answered ${response.status} without a redirect: ${await response.text()}`);
    next = new URL(location, next).href;
    if (next.startsWith(redirectUri)) return new URL(next);
  }
  throw new Error('the provider never sent the browser back');
}
