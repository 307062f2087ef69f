import type { Db } from '@tasklane/db';
import { type AuthResponse, EmailSchema, type ErrorReason } from '@tasklane/schemas';
import * as oidc from 'openid-client';
import type { ClientInfo, AuthService } from '../auth/service';
import type { OneTimeCodes } from '../auth/one-time-codes';
import type { OidcConfig } from '../../platform/config';
import { DomainError } from '../../platform/errors';
import { isUniqueViolation } from '../../platform/db-errors';
import { inTransaction } from '../../platform/ambient-transaction';
import { createFlowCookies } from './flow-cookie';
import * as store from './store';

/** How long the web app has to exchange the code of a finished sign-on for its session. */
const HANDOFF_TTL_MS = 2 * 60_000;
const SCOPE = 'openid email profile';

/** What the provider says of the person, from the ID token or else its userinfo endpoint. */
interface Profile {
  issuer: string;
  subject: string;
  email?: unknown;
  emailVerified?: unknown;
  name?: unknown;
  preferredUsername?: unknown;
}

const refusal = (code: 'BAD_REQUEST' | 'FORBIDDEN' | 'CONFLICT' | 'SERVICE_UNAVAILABLE', message: string, reason: ErrorReason) => new DomainError(code, message, reason);

const notConfigured = () => new DomainError('NOT_FOUND', 'Single sign-on is not configured on this server', 'OIDC_DISABLED');
const stateMismatch = () =>
  refusal('BAD_REQUEST', 'This sign-on does not match one started in this browser (or it took more than 10 minutes): start again', 'OIDC_STATE_MISMATCH');

/**
 * Single sign-on with an OpenID provider: authorization code flow with PKCE, state and nonce,
 * through openid-client (discovery, token exchange, ID token validation). A sign-on ends in a
 * session like a password login. An account of the provider is found by its link (issuer and
 * subject), else linked to the account with its email only when the provider says the email is
 * verified, else created (OIDC_AUTO_CREATE).
 */
export function createSsoService(db: Db, auth: AuthService, codes: OneTimeCodes, options: { config: OidcConfig | undefined; publicUrl: string; secret: string }) {
  const { config, publicUrl } = options;
  const redirectUri = `${publicUrl}/api/v1/auth/oidc/callback`;
  const cookies = createFlowCookies(options.secret, publicUrl.startsWith('https://'));
  let discovered: Promise<oidc.Configuration> | undefined;

  /** The provider's metadata, discovered on first use and kept; a failed discovery is tried again next time. */
  function provider(): Promise<oidc.Configuration> {
    if (!config) throw notConfigured();
    // Plain http only for a provider on this machine (config.ts refuses it elsewhere).
    const insecure = config.issuer.startsWith('http://');
    discovered ??= oidc
      .discovery(new URL(config.issuer), config.clientId, config.clientSecret, undefined, insecure ? { execute: [oidc.allowInsecureRequests] } : undefined)
      .catch((error: unknown) => {
        discovered = undefined;
        throw Object.assign(refusal('SERVICE_UNAVAILABLE', 'The identity provider cannot be reached; retry shortly', 'OIDC_UNAVAILABLE'), { cause: error });
      });
    return discovered;
  }

  async function profileOf(configuration: oidc.Configuration, callbackUrl: URL, flow: { state: string; nonce: string; codeVerifier: string }): Promise<Profile> {
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    try {
      tokens = await oidc.authorizationCodeGrant(configuration, callbackUrl, {
        pkceCodeVerifier: flow.codeVerifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
    } catch (error) {
      throw Object.assign(refusal('BAD_REQUEST', 'The identity provider did not accept this sign-on (its code may be used or expired): start again', 'OIDC_CODE_REJECTED'), { cause: error });
    }
    const claims = tokens.claims()!;
    const profile: Profile = {
      issuer: claims.iss,
      subject: claims.sub,
      email: claims.email,
      emailVerified: claims.email_verified,
      name: claims.name,
      preferredUsername: claims.preferred_username,
    };
    // Many providers put the email only in userinfo (and some do not say whether it is verified).
    if (profile.email === undefined || profile.emailVerified === undefined) {
      const info = await oidc.fetchUserInfo(configuration, tokens.access_token, claims.sub);
      profile.email ??= info.email;
      profile.emailVerified ??= info.email_verified;
      profile.name ??= info.name;
      profile.preferredUsername ??= info.preferred_username;
    }
    return profile;
  }

  /** The account this sign-on is for: linked, linked now (verified email), or created. */
  async function accountOf(profile: Profile) {
    const linkedId = await store.findLinkedUser(db, profile.issuer, profile.subject);
    const linked = linkedId ? await auth.accountById(linkedId) : undefined;
    if (linked) return linked;
    const email = EmailSchema.safeParse(profile.email);
    if (!email.success) throw refusal('CONFLICT', 'The identity provider gave no usable email address for this account', 'OIDC_EMAIL_MISSING');
    const existing = await auth.accountByEmail(email.data);
    if (existing) {
      if (profile.emailVerified !== true) {
        throw refusal(
          'CONFLICT',
          `An account with ${email.data} exists, but the identity provider does not confirm that this email is verified, so it was not linked: verify the email with the provider, or log in with the password`,
          'EMAIL_NOT_VERIFIED',
        );
      }
      await store.link(db, { issuer: profile.issuer, subject: profile.subject, userId: existing.id });
      return existing;
    }
    if (!config!.autoCreate) {
      throw refusal('FORBIDDEN', 'No account has this email, and this server creates none on sign-on: ask an administrator to create it', 'OIDC_SIGNUP_DISABLED');
    }
    const name = [profile.name, profile.preferredUsername].find((value): value is string => typeof value === 'string' && value.trim() !== '')?.trim() ?? email.data.split('@')[0]!;
    try {
      return await inTransaction(db, async (tx) => {
        const user = await auth.createAccount({ name: name.slice(0, 200), email: email.data });
        await store.link(tx, { issuer: profile.issuer, subject: profile.subject, userId: user.id });
        return user;
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw refusal('CONFLICT', 'This email was registered at the same moment: sign in again', 'EMAIL_TAKEN');
      throw error;
    }
  }

  return {
    enabled: config !== undefined,
    name: config?.name,

    /** Where to send the browser, and the cookie that lets its return be recognised. */
    async start(): Promise<{ location: string; setCookie: string }> {
      const configuration = await provider();
      const flow = { state: oidc.randomState(), nonce: oidc.randomNonce(), codeVerifier: oidc.randomPKCECodeVerifier() };
      const location = oidc.buildAuthorizationUrl(configuration, {
        redirect_uri: redirectUri,
        scope: SCOPE,
        state: flow.state,
        nonce: flow.nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(flow.codeVerifier),
        code_challenge_method: 'S256',
      });
      return { location: location.href, setCookie: await cookies.seal(flow) };
    },

    /** The account the provider's redirect (its query `search`) signs in; the caller starts its session or hands it off. */
    async finish(search: string, cookieHeader: string | undefined) {
      const configuration = await provider();
      const flow = await cookies.open(cookieHeader);
      const callbackUrl = new URL(`${redirectUri}${search}`);
      if (!flow || callbackUrl.searchParams.get('state') !== flow.state) throw stateMismatch();
      const error = callbackUrl.searchParams.get('error');
      if (error) throw refusal('FORBIDDEN', `The identity provider ended the sign-on: ${callbackUrl.searchParams.get('error_description') ?? error}`, 'OIDC_DENIED');
      return accountOf(await profileOf(configuration, callbackUrl, flow));
    },

    /** The cookie value that ends a flow. */
    clearFlow: () => cookies.clear(),

    /** A single-use code the web app exchanges for the session (a token never travels in a URL). */
    handOff: (userId: string) => inTransaction(db, async (tx) => codes.codeFor(await codes.issue(tx, 'sso-handoff', userId, HANDOFF_TTL_MS), 'sso-handoff')),

    async exchange(code: string, client: ClientInfo): Promise<AuthResponse> {
      if (!config) throw notConfigured();
      const userId = await codes.consume(db, code, 'sso-handoff');
      const account = userId ? await auth.accountById(userId) : undefined;
      if (!account) throw refusal('BAD_REQUEST', 'This sign-on code is invalid, expired or already used: sign in again', 'INVALID_SSO_CODE');
      return auth.startSession(account, 'oidc', client);
    },
  };
}

export type SsoService = ReturnType<typeof createSsoService>;
