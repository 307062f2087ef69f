import { createHash } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { isId } from '../lib/ids';

const AUDIENCE = 'tasklane:email-unsubscribe';

/**
 * The signed token of an email's one-click unsubscribe link: a JWT (HS256) naming the user, under a
 * key derived from the server's secret for this purpose only, so it is never a login token and no
 * login token is one. It does not expire (a link in an old email keeps working) and can do one
 * thing: turn that user's notification email off.
 */
export function createUnsubscribeTokens(secret: string) {
  const key = createHash('sha256').update(`tasklane unsubscribe links\0${secret}`).digest();
  return {
    sign: (userId: string): Promise<string> =>
      new SignJWT({}).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setSubject(userId).setAudience(AUDIENCE).setIssuedAt().sign(key),

    /** The user a genuine token names; undefined for anything else. */
    async verify(token: string): Promise<string | undefined> {
      try {
        const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], audience: AUDIENCE });
        return typeof payload.sub === 'string' && isId(payload.sub) ? payload.sub : undefined;
      } catch {
        return undefined;
      }
    },
  };
}

export type UnsubscribeTokens = ReturnType<typeof createUnsubscribeTokens>;

/** The path of the one-click unsubscribe link (RFC 8058) under the public URL. */
export const UNSUBSCRIBE_PATH = '/api/v1/notification-settings/unsubscribe';
