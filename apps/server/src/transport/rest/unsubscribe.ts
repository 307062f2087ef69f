import { LOCALES, UnsubscribeBody, UnsubscribeQuery } from '@tasklane/schemas';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';
import type { ZodType } from 'zod';
import { DomainError } from '../../platform/errors';
import { isDatabaseUnavailable } from '../../platform/db-errors';
import { escapeHtml } from '../../platform/mail/html';
import { mailLocale, type MailT, mailT } from '../../platform/mail/i18n';
import type { NotificationSettingsService } from '../../resources/notification-email/service';
import { UNSUBSCRIBE_PATH } from '../../resources/notification-email/unsubscribe-token';
import { type ErrorIssue, normalizeIssues, summarizeIssues, UNSUPPORTED_MEDIA_TYPE_MESSAGE } from '../trpc/errors';
import { errorBody } from './rest-errors';

const FORM = 'application/x-www-form-urlencoded';
export const UNSUBSCRIBE_CONFIRM_MESSAGE = 'To turn notification email off, POST List-Unsubscribe=One-Click (form-encoded) to this same URL';

const wantsHtml = (request: FastifyRequest) => new Negotiator(request.raw).mediaType(['application/json', 'text/html']) === 'text/html';

/**
 * The pages speak the browser's language (`Accept-Language`, among the app's), not the account's:
 * whoever opens the link may read it anywhere, and the refusal page has no account to ask.
 */
function speaking(request: FastifyRequest): { lang: string; t: MailT } {
  const lang = mailLocale(new Negotiator(request.raw).language([...LOCALES]));
  return { lang, t: mailT(lang) };
}

const page = (lang: string, title: string, body: string) => `<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title></head>
<body style="font-family:system-ui,sans-serif;max-width:34rem;margin:4rem auto;padding:0 1rem">
<h1 style="font-size:1.4rem">${escapeHtml(title)}</h1>
${body}
</body></html>`;

/** An answer in the caller's terms: a page for a browser, JSON for anything else. */
function answer(request: FastifyRequest, reply: FastifyReply, status: number, json: object, html: () => string) {
  reply.code(status).header('cache-control', 'no-store');
  return wantsHtml(request) ? reply.type('text/html; charset=utf-8').send(html()) : reply.send(json);
}

function refuse(request: FastifyRequest, reply: FastifyReply, status: number, body: ReturnType<typeof errorBody>) {
  const { lang, t } = speaking(request);
  // The reason is the API's message, in English as every API message.
  return answer(request, reply, status, body, () => page(lang, t('unsubscribe.brokenTitle'), `<p>${escapeHtml(body.message)}</p>`));
}

/** A refusal of the service as a 400, an unreachable database as the API's 503; anything else is a bug. */
function refuseFor(error: unknown, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof DomainError) return refuse(request, reply, 400, errorBody(400, error.message, error.reason));
  if (isDatabaseUnavailable(error)) return refuse(request, reply, 503, errorBody(503, 'The database is unavailable; retry shortly', 'DATABASE_UNAVAILABLE'));
  throw error;
}

const issuesOf = (schema: ZodType, value: unknown): ErrorIssue[] => {
  const result = schema.safeParse(value);
  return result.success ? [] : normalizeIssues(result.error);
};

/** The link's token when the query (and the body, for a POST) are valid; else the 400 naming every bad field is sent. */
function tokenOf(request: FastifyRequest, reply: FastifyReply, body?: unknown): string | undefined {
  const issues = [...issuesOf(UnsubscribeQuery, request.query), ...(body === undefined ? [] : issuesOf(UnsubscribeBody, body))];
  if (issues.length === 0) return (request.query as { token: string }).token;
  void refuse(request, reply, 400, { ...errorBody(400, summarizeIssues(issues)), issues });
  return undefined;
}

/**
 * The one-click unsubscribe link of notification emails (RFC 8058), which works without logging
 * in: its signed `token` names the user. A mail client POSTs `List-Unsubscribe=One-Click`
 * (form-encoded; JSON is taken too) and email is turned off. A GET never changes anything — mail
 * clients and scanners fetch links on their own — and shows a page with the button that POSTs.
 * A plain Fastify route: trpc-to-openapi reads only JSON bodies and no query on a POST.
 */
export function registerUnsubscribeRoutes(app: FastifyInstance, settings: NotificationSettingsService): void {
  void app.register(async (scope) => {
    scope.addContentTypeParser(FORM, { parseAs: 'string', bodyLimit: 4096 }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });

    scope.get(UNSUBSCRIBE_PATH, async (request, reply) => {
      const token = tokenOf(request, reply);
      if (token === undefined) return reply;
      try {
        await settings.checkToken(token);
      } catch (error) {
        return refuseFor(error, request, reply);
      }
      const { lang, t } = speaking(request);
      return answer(request, reply, 200, { message: UNSUBSCRIBE_CONFIRM_MESSAGE }, () =>
        page(
          lang,
          t('unsubscribe.confirmTitle'),
          `<p>${escapeHtml(t('unsubscribe.confirmBody'))}</p>
<form method="post" action="?token=${escapeHtml(encodeURIComponent(token))}">
<input type="hidden" name="List-Unsubscribe" value="One-Click">
<button type="submit">${escapeHtml(t('unsubscribe.button'))}</button>
</form>`,
        ),
      );
    });

    scope.post(UNSUBSCRIBE_PATH, async (request, reply) => {
      const type = request.headers['content-type']?.toLowerCase() ?? '';
      if (!type.startsWith(FORM) && !type.startsWith('application/json')) {
        return refuse(request, reply, 415, errorBody(415, `${UNSUPPORTED_MEDIA_TYPE_MESSAGE} or ${FORM}`));
      }
      const token = tokenOf(request, reply, request.body ?? null);
      if (token === undefined) return reply;
      try {
        const result = await settings.unsubscribe(token);
        const { lang, t } = speaking(request);
        return answer(request, reply, 200, result, () => page(lang, t('unsubscribe.doneTitle'), `<p>${escapeHtml(t('unsubscribe.doneBody'))}</p>`));
      } catch (error) {
        return refuseFor(error, request, reply);
      }
    });
  });
}
