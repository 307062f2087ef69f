import { createHash } from 'node:crypto';
import { parseCookie, stringifySetCookie } from 'cookie';
import { EncryptJWT, jwtDecrypt } from 'jose';

export const FLOW_COOKIE = 'tasklane_sso';
const FLOW_TTL_SECONDS = 600;
const COOKIE_PATH = '/api/v1/auth/oidc/';

/** What a sign-on needs to recognise its own return: the checks sent to the provider. */
export interface Flow {
  state: string;
  nonce: string;
  codeVerifier: string;
}

/**
 * A sign-on's checks travel in a cookie of the browser that started it, encrypted (the PKCE
 * verifier is a secret) and bound to it: a callback arriving in another browser, or without the
 * cookie, is refused, so nobody can make someone else finish a sign-on they started. No server
 * state, so any instance can take the callback.
 */
export function createFlowCookies(secret: string, secure: boolean) {
  const key = createHash('sha256').update(`tasklane sign-on flow\0${secret}`).digest();
  const attributes = { path: COOKIE_PATH, httpOnly: true, sameSite: 'lax' as const, secure };

  return {
    /** The Set-Cookie value that starts a flow. */
    async seal(flow: Flow): Promise<string> {
      const sealed = await new EncryptJWT({ ...flow }).setProtectedHeader({ alg: 'dir', enc: 'A256GCM' }).setIssuedAt().setExpirationTime(`${FLOW_TTL_SECONDS}s`).encrypt(key);
      return stringifySetCookie(FLOW_COOKIE, sealed, { ...attributes, maxAge: FLOW_TTL_SECONDS });
    },

    /** The Set-Cookie value that ends a flow (used or refused alike). */
    clear: () => stringifySetCookie(FLOW_COOKIE, '', { ...attributes, maxAge: 0 }),

    /** The flow of a Cookie header, or undefined when it is missing, forged or expired. */
    async open(cookieHeader: string | undefined): Promise<Flow | undefined> {
      const sealed = cookieHeader ? parseCookie(cookieHeader)[FLOW_COOKIE] : undefined;
      if (!sealed) return undefined;
      try {
        const { payload } = await jwtDecrypt(sealed, key, { keyManagementAlgorithms: ['dir'], contentEncryptionAlgorithms: ['A256GCM'] });
        const { state, nonce, codeVerifier } = payload;
        return typeof state === 'string' && typeof nonce === 'string' && typeof codeVerifier === 'string' ? { state, nonce, codeVerifier } : undefined;
      } catch {
        return undefined;
      }
    },
  };
}
