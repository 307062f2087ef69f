import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signed download links: `/api/v1/attachments/{id}/content?expires=<unix seconds>&signature=<HMAC>`,
 * the HMAC-SHA256 of the id and the expiry under a key derived from the server's secret (JWT_SECRET
 * or the generated one), so a link opens one attachment's bytes, without a token, until it
 * expires; changing the id or the expiry breaks the signature. A link outlives neither the
 * attachment (its content route finds no row) nor a change of the server's secret.
 */
export function createAttachmentLinks(secret: string, ttlSeconds: number, now: () => number = Date.now) {
  const key = createHash('sha256').update(`tasklane attachment links\0${secret}`).digest();
  const signatureOf = (id: string, expires: number) => createHmac('sha256', key).update(`${id.toLowerCase()}\0${expires}`).digest('base64url');

  return {
    /** The link to an attachment's bytes, valid for the configured time from now. */
    urlFor(id: string): string {
      const expires = Math.floor(now() / 1000) + ttlSeconds;
      return `/api/v1/attachments/${id}/content?expires=${expires}&signature=${signatureOf(id, expires)}`;
    },

    /** Whether a link's `expires` and `signature` are genuine for the id and not yet past. */
    verify(id: string, expires: string | undefined, signature: string | undefined): boolean {
      if (!expires || !signature || !/^\d{1,12}$/.test(expires)) return false;
      const expected = Buffer.from(signatureOf(id, Number(expires)));
      const given = Buffer.from(signature);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return false;
      return Number(expires) * 1000 > now();
    },
  };
}

export type AttachmentLinks = ReturnType<typeof createAttachmentLinks>;
