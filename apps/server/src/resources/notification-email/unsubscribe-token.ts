import { createHash } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { isId } from '../../platform/ids';

const AUDIENCE = 'tasklane:email-unsubscribe';

/**
 * The signed token of an email's one-click unsubscribe link: a JWT (HS256) naming the user, under a
 * key derived from the server's secret for this purpose only, so it is never a login token and no
 * login token is one. It can do one thing: turn that user's notification email off. It does not
 * expire, but the service refuses one issued before the user's last change of the setting, so a
 * link in an old or forwarded email cannot turn email off again once its owner has turned it on.
 */
export function createUnsubscribeTokens(secret: string) {
  const key = createHash('sha256').update(`tasklane unsubscribe links\0${secret}`).digest();
  return {
    sign: (userId: string): Promise<string> =>
      new SignJWT({}).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setSubject(userId).setAudience(AUDIENCE).setIssuedAt().sign(key),

    /** The user a genuine token names and when it was issued (seconds); undefined for anything else. */
    async verify(token: string): Promise<{ userId: string; issuedAt: number } | undefined> {
      try {
        const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], audience: AUDIENCE, requiredClaims: ['iat'] });
        return typeof payload.sub === 'string' && isId(payload.sub) && Number.isSafeInteger(payload.iat) ? { userId: payload.sub, issuedAt: payload.iat! } : undefined;
      } catch {
        return undefined;
      }
    },
  };
}

export type UnsubscribeTokens = ReturnType<typeof createUnsubscribeTokens>;

/** The path of the one-click unsubscribe link (RFC 8058) under the public URL. */
export const UNSUBSCRIBE_PATH = '/api/v1/notification-settings/unsubscribe';
