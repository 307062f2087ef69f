import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { createDatabase, type Database } from '@tasklane/db';
import type { TRPCError } from '@trpc/server';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { startActivityHub } from '../resources/activity/hub';
import { registerEventStreamRoute } from '../transport/sse/activity';
import { createOneTimeCodes } from '../resources/auth/one-time-codes';
import { createPasswordHasher } from '../resources/auth/password';
import { PASSWORD_RESET_MAIL, passwordResetMail } from '../resources/auth/password-reset';
import { createInvitationTokens, INVITATION_MAIL, invitationMail } from '../resources/members/invitation-mail';
import { createTokenStateCache } from '../resources/credentials/token-state';
import { createAuthService } from '../resources/auth/service';
import { createTokenService } from '../resources/credentials/tokens';
import type { Config } from '../platform/config';
import type { Page } from '../platform/paging';
import { backupFiles, lockDataDir, operatorSocketPath, PGLITE_TEMPLATE, pgliteDir } from './data-dir';
import { registerAdminRoutes } from '../transport/rest/admin';
import { createOperatorChannel } from '../transport/operator/server';
import { registerRateLimits } from '../transport/rest/rate-limits';
import { errorBody, fastifyErrorToBody, sendError, toRestErrorPayload } from '../transport/rest/rest-errors';
import { errorSerializer, requestSerializer } from '../transport/rest/log-serializers';
import { OneLinePerRequest, prettyLogStream } from '../transport/rest/request-log';
import { clientErrorHandler, registerSecurity } from '../transport/rest/security';
import { markWrote, readPositionOf, registerReadPosition } from '../transport/rest/read-position';
import { registerTrpcTransport, trpcRouteLabel } from '../transport/rest/trpc-transport';
import { registerProcedureRoute } from '../transport/rest/procedure-route';
import { registerBodilessRequests, registerRestInputChecks, restRouteLabel } from '../transport/rest/rest-input';
import { allowOfPaths, refuseMethod, registerRestSemantics } from '../transport/rest/rest-semantics';
import { createBackgroundQueue } from '../platform/background';
import { createMailOutbox } from '../platform/mail/outbox';
import { startNotificationMailer } from '../resources/notification-email/mailer';
import { notificationMailTemplates } from '../resources/notification-email/templates';
import { createUnsubscribeTokens } from '../resources/notification-email/unsubscribe-token';
import { registerUnsubscribeRoutes } from '../transport/rest/unsubscribe';
import { registerCalendarFeedRoute } from '../transport/rest/calendar-feed';
import { startMailSender } from '../platform/mail/sender';
import { startBackgroundWorker } from '../platform/background-worker';
import { recordingEvents } from '../events/record';
import { startFeedHub } from '../platform/feed-hub';
import { dueReminderJob, notificationFeed } from '../resources/notifications/service';
import { registerNotificationStreamRoute } from '../transport/sse/notifications';
import { createImportProgressHub } from '../resources/imports/progress';
import { createMetrics, registerHttpMetrics, registerMetricsRoute } from '../platform/metrics';
import { startDeliveryWorker } from '../resources/webhooks/worker';
import { startDispatcher } from '../events/dispatcher';
import { removeFilesOfEvents, sweepFiles } from '../events/attachment-files';
import { createBlobStore } from '../platform/storage';
import { createAttachmentLinks } from '../resources/attachments/links';
import { registerAttachmentRoutes } from '../transport/rest/attachments';
import { registerExportRoutes } from '../transport/rest/export';
import { registerImportRoutes } from '../transport/rest/imports';
import { buildOpenApiDocument, createdPaths, locationOf, pagedPaths, restRoutes } from '../transport/rest/openapi';
import { answerAsRestList } from '../transport/rest/paged-lists';
import { createServices } from '../resources/services';
import { domainErrorOf } from '../transport/trpc/errors';
import type { Context, ServicesHandle } from '../transport/trpc/init';
import { appRouter } from '../transport/trpc/router';
import { tokenNeedOf } from '../transport/trpc/token-scopes';
import { registerWebApp } from '../transport/rest/web-app';

export const VERSION = '0.1.0';

declare module 'fastify' {
  interface FastifyInstance {
    /** The due-reminder job of this instance (it also runs every REMINDER_POLL_MS by itself). */
    dueReminders: { runOnce(): Promise<{ ran: boolean; reminded: number }> };
  }
}
const BODY_LIMIT = 1024 * 1024;
const TRPC_PREFIX = '/api/trpc';

export interface BuildOptions {
  /** A database opened (and migrated) by the caller, as tests do; otherwise one is opened from the config. */
  database?: Database;
  /** Fastify's logger; defaults to the configured level and format (LOG_FORMAT). */
  logger?: boolean | object;
  /** Where the default logger writes (stdout otherwise); tests read the real log output from it. */
  logStream?: NodeJS.WritableStream;
}

const singleHeader = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join(', ') : value);

/**
 * The configured database, migrated. A PGlite data directory is locked for this process first
 * (src/data-dir.ts) and stays locked until the database is closed: `command` names the holder.
 */
export async function openDatabase(config: Config, command = 'serve'): Promise<Database> {
  if (config.databaseUrl) {
    const database = await createDatabase({
      kind: 'postgres',
      url: config.databaseUrl,
      poolSize: config.databasePoolSize,
      pooler: config.databasePooler,
      ...(config.databaseListenUrl ? { listenUrl: config.databaseListenUrl } : {}),
      ...(config.databaseReplicas ? { replicas: config.databaseReplicas } : {}),
    });
    await database.migrate();
    return database;
  }
  const lock = lockDataDir(config.dataDir, command);
  try {
    const database = await createDatabase({ kind: 'pglite', dataDir: pgliteDir(config.dataDir), template: PGLITE_TEMPLATE });
    await database.migrate();
    return {
      ...database,
      close: async () => {
        try {
          await database.close();
        } finally {
          lock.release();
        }
      },
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<FastifyInstance> {
  const database = options.database ?? (await openDatabase(config));
  const metrics = createMetrics();
  const passwords = createPasswordHasher(config.bcryptCost, (operation) => metrics.passwordWork.inc({ operation }));
  metrics.observeDatabase(database);
  const hub = await startActivityHub(database, database.db, (error) => app.log.error({ err: error }, 'reading new activity failed'), config.eventHeartbeatMs);
  const notificationHub = startFeedHub(database, notificationFeed(database.db), (error) => app.log.error({ err: error }, 'reading new notifications failed'), config.eventHeartbeatMs);
  const tokenStates = createTokenStateCache(config.tokenCheckCacheMs);
  const stopFollowingTokens = await tokenStates.follow(database);
  const tokens = createTokenService(config.jwtSecret, config.jwtTtlSeconds);
  const codes = createOneTimeCodes(config.jwtSecret);
  const invitationTokens = createInvitationTokens(config.jwtSecret);
  const background = createBackgroundQueue((error) => app.log.error({ err: error }, 'background work failed'));
  const mailOutbox = createMailOutbox(config.mail !== undefined);
  const unsubscribeTokens = createUnsubscribeTokens(config.jwtSecret);
  // Attachment files: DATA_DIR/files, or the S3 bucket.
  const files = await createBlobStore({ dataDir: config.dataDir, ...(config.attachments.s3 ? { s3: config.attachments.s3 } : {}) });
  // Imports' progress, for the live streams of their creators on this instance.
  const importProgress = createImportProgressHub();
  const services = createServices(
    database.db,
    { passwords, tokens, tokenStates },
    { hub, notificationHub, metrics, webhooks: config.webhooks, eventMaxQueued: config.eventMaxQueued },
    {
      publicUrl: config.publicUrl,
      passwordLogin: config.passwordLogin,
      oidc: config.oidc,
      secret: config.jwtSecret,
      codes,
      invitationTokens,
      mail: mailOutbox,
      background,
      notificationEmail: { tokens: unsubscribeTokens, digestHour: config.mail?.digestHour ?? 8, now: config.mail?.now ?? (() => new Date()) },
    },
    {
      files,
      links: createAttachmentLinks(config.jwtSecret, config.attachments.linkTtlSeconds),
      maxBytes: config.attachments.maxBytes,
      ...(config.attachments.quotaBytes !== undefined ? { quotaBytes: config.attachments.quotaBytes } : {}),
    },
    { files, leaseMs: config.imports.leaseMs, maxAttempts: 3, onError: (error) => app.log.error({ err: error }, 'an import failed on the server\'s side'), onProgress: importProgress.publish },
  );
  // Every kind of email the service sends, by the name it is queued under.
  const mailTemplates = {
    [PASSWORD_RESET_MAIL]: passwordResetMail(config.publicUrl, codes),
    [INVITATION_MAIL]: invitationMail(config.publicUrl, invitationTokens, database.db),
    ...notificationMailTemplates(config.publicUrl, unsubscribeTokens, database.db) };
  const mailSender = config.mail
    ? await startMailSender(database, config.mail, mailTemplates, (error) => app.log.error({ err: error }, 'sending email failed'))
    : undefined;
  // Notifications become email in the background, only when the server sends email.
  const notificationMailer = config.mail
    ? await startNotificationMailer(database, config.mail, mailOutbox, (error) => app.log.error({ err: error }, 'queueing notification email failed'))
    : undefined;
  const deliveryWorker = startDeliveryWorker(
    database.db,
    config.webhooks,
    (error) => app.log.error({ err: error }, 'webhook delivery failed'),
    (outcome) => metrics.webhookDeliveries.inc({ outcome }),
  );
  metrics.observeWebhookOutbox(deliveryWorker.pendingCount);
  hub.onDeliveriesQueued(deliveryWorker.wake);
  // The work derived from events (notifications, watchers, webhook deliveries), after their commit.
  const dispatcher = await startDispatcher(database, database.db, {
    ...config.dispatch,
    onError: (error) => app.log.error({ err: error }, 'dispatching events failed'),
    onDispatched: (lagSeconds) => metrics.eventDispatchLag.observe(lagSeconds),
    // Files of deleted attachments, tasks and projects go once their deletion has committed.
    afterBatch: (events) => removeFilesOfEvents(database.db, files, events),
  });
  // Files no row names (a crash between a commit and its file work) and abandoned uploads: at start-up, then hourly.
  const fileSweeper = startBackgroundWorker({
    pollMs: config.attachments.sweepIntervalMs,
    drain: async () => void (await sweepFiles(database.db, files, { temporaryMaxAgeMs: config.attachments.temporaryMaxAgeMs })),
    onError: (error) => app.log.error({ err: error }, 'sweeping attachment files failed'),
  });
  const dueReminders = dueReminderJob(database.db, config.reminders.windowSeconds);
  const reminderWorker = startBackgroundWorker({
    pollMs: config.reminders.pollMs,
    drain: async () => void (await dueReminders.runOnce()),
    onError: (error) => app.log.error({ err: error }, 'sending due reminders failed'),
    // Not in the middle of starting up: a reminder may wait one interval.
    firstRunAfterPoll: true,
  });
  // Imports waiting (their files in the blob store): one at a time per instance, each taken by one instance.
  const importWorker = startBackgroundWorker({
    pollMs: config.imports.pollMs,
    drain: async (stopped) => {
      while (!stopped()) {
        // The work derived from an import's events (its members told) done before the next, as a request's is.
        const { result: ran, eventIds } = await recordingEvents(() => services.imports.runNext());
        await dispatcher.settle(eventIds);
        if (!ran) break;
      }
    },
    onError: (error) => app.log.error({ err: error }, 'running imports failed'),
  });
  const servicesHandle = services as unknown as ServicesHandle;

  const logStream = config.logFormat === 'pretty' ? prettyLogStream(options.logStream) : options.logStream;
  const app = Fastify({
    logger: options.logger ?? {
      level: config.logLevel,
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], censor: '[redacted]' },
      ...(logStream ? { stream: logStream } : {}),
      serializers: { req: requestSerializer, err: errorSerializer },
    },
    logController: new OneLinePerRequest(),
    bodyLimit: BODY_LIMIT,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    trustProxy: config.trustProxy,
    clientErrorHandler,
    // tRPC's batched GET names every procedure in one path segment (`/api/trpc/a,b,c`); the router's
    // default limit of 100 characters answered a batch of six calls from the web app with a 404.
    routerOptions: { maxParamLength: 5000 },
    // A path parameter whose percent-encoding is not UTF-8 (`%ED%A0%80`, an unpaired surrogate) is
    // a malformed id: a 404 in the documented body, not Fastify's own 400.
    frameworkErrors: (error, request, reply) => {
      if (error.code === 'FST_ERR_BAD_URL') return sendError(request, reply, 404, errorBody(404, 'Not found: the path is not valid percent-encoded UTF-8'));
      const { status, body } = fastifyErrorToBody(error);
      return sendError(request, reply, status, body);
    },
  });
  if (database.created) {
    app.log.info(
      { created: database.created },
      database.created === 'template' ? 'made the embedded database in DATA_DIR/pgdata from the bundled template' : 'made the embedded database in DATA_DIR/pgdata (initdb and migrations)',
    );
  }

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    // Fastify reads originalUrl once, on first use: read it before any handler may rewrite the raw
    // URL (an adapter stripping its prefix), so the request's log line names the URL as received.
    void request.originalUrl;
  });
  registerHttpMetrics(app, metrics, {
    '/api/v1/*': restRouteLabel('/api/v1', restRoutes(appRouter)),
    '/api/trpc/:path': trpcRouteLabel('/api/trpc', appRouter),
  });

  // The process that opened (and so locked) a PGlite DATA_DIR answers the operator commands on it.
  // Its auth service admits create-user with PASSWORD_LOGIN off, as the offline command does.
  const operatorChannel =
    !options.database && database.dumpDataDir
      ? createOperatorChannel({ auth: createAuthService(database.db, passwords, tokens, tokenStates), dump: database.dumpDataDir, files: backupFiles(config) }, app.log)
      : undefined;
  if (operatorChannel) app.addHook('onReady', () => operatorChannel.listen(operatorSocketPath(config.dataDir)));

  app.addHook('onClose', async () => {
    await operatorChannel?.close();
    await background.flush();
    await notificationMailer?.stop();
    await mailSender?.stop();
    await passwords.close();
    await dispatcher.stop();
    await deliveryWorker.stop();
    await reminderWorker.stop();
    await importWorker.stop();
    await fileSweeper.stop();
    await hub.close();
    await notificationHub.close();
    await stopFollowingTokens();
    database.onQuerySettled(undefined);
    if (!options.database) await database.close();
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const { status, body } = fastifyErrorToBody(error);
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    return sendError(request, reply, status, body);
  });
  const document = buildOpenApiDocument(appRouter, VERSION);
  const allowOf = allowOfPaths('/api/v1', { ...document.paths, '/openapi.json': { get: {} } });
  // Methods no route has (OPTIONS without CORS) end here too: a 405 on a path of the API.
  app.setNotFoundHandler((request, reply) => refuseMethod(allowOf, request, reply));

  await registerSecurity(app, config.corsOrigins, (request, reply) => refuseMethod(allowOf, request, reply));
  const replicas = database.replicas;
  registerReadPosition(app, replicas);
  registerBodilessRequests(app);
  const limits = await registerRateLimits(app, {
    authPerMinute: config.authRateLimit,
    tokenPerMinute: config.tokenRateLimit,
    trpcRoute: `${TRPC_PREFIX}/:path`,
    ...(config.redisUrl ? { redisUrl: config.redisUrl } : {}),
    onRefused: (limit) => metrics.rateLimited.inc({ limit }),
  });

  const contextFor = (transport: Context['transport'], request: FastifyRequest, reply: FastifyReply, url: string): Context => ({
    transport,
    requestId: request.id,
    authorization: request.headers.authorization,
    ifMatch: singleHeader(request.headers['if-match']),
    idempotencyKey: singleHeader(request.headers['idempotency-key']),
    url,
    client: { ip: request.ip, userAgent: request.headers['user-agent'] },
    cookie: request.headers.cookie,
    accept: request.headers.accept,
    response: { headers: {} },
    dropConnection: () => request.raw.destroy(),
    countAttempt: (input) => limits.countAttempt(request, reply, input),
    tokenNeedOf,
    services: servicesHandle,
    settleEvents: dispatcher.settle,
    readFromReplica: replicas ? (read) => replicas.reading(readPositionOf(request), read) : (read) => read(),
    trackWrites: replicas ? (call) => replicas.within(call, () => markWrote(request)) : (call) => call(),
  });
  const logFailure = ({ error, req }: { error: { code: string; cause?: unknown }; req: unknown }) => {
    if (error.code === 'INTERNAL_SERVER_ERROR') (req as FastifyRequest).log.error({ err: error.cause ?? error }, 'procedure failed');
  };

  const creates = createdPaths(appRouter);
  const pagedLists = pagedPaths(appRouter);
  /** A 401 names the scheme that would be accepted (RFC 6750), on both transports. */
  const challengeHeaders = (errors: readonly { code: string }[]): Record<string, string> =>
    errors.some((error) => error.code === 'UNAUTHORIZED') ? { 'www-authenticate': 'Bearer' } : {};
  app.get('/api/v1/openapi.json', async () => document);

  await app.register(async (rest) => {
    registerRestSemantics(rest, allowOf);
    registerRestInputChecks(rest, '/api/v1', restRoutes(appRouter));
    rest.addHook('onSend', async (_request, reply, payload) =>
      reply.statusCode >= 400 && typeof payload === 'string' ? toRestErrorPayload(payload) : payload,
    );
    registerProcedureRoute(rest, {
      basePath: '/api/v1',
      router: appRouter,
      createContext: (request, reply) => contextFor('rest', request, reply, request.url),
      onError: logFailure,
      responseMeta: ({ ctx, paths, errors, data }) => {
        if (errors.length > 0) {
          // A refusal may carry headers of its own, such as the current ETag of a 412.
          const [error] = errors;
          return { headers: { ...challengeHeaders(errors), ...domainErrorOf(error)?.headers } };
        }
        const path = paths?.[0];
        // A paged list's page becomes the documented array and Link header here, at the REST edge.
        if (ctx && path !== undefined && pagedLists.has(path)) answerAsRestList(data?.[0] as Page<unknown>, ctx.response, ctx.url);
        const created = path !== undefined && creates.has(path);
        const template = created ? creates.get(path) : undefined;
        const location = template ? locationOf(template, data?.[0]) : undefined;
        const status = ctx?.response.status ?? (created ? 201 : 200);
        return {
          status,
          // A procedure that creates one of two kinds of resource (an invite) sets its own Location.
          headers: { ...ctx?.response.headers, ...(status === 201 && location && !ctx?.response.headers.location ? { location } : {}) },
        };
      },
    });
  });

  await registerTrpcTransport(app, TRPC_PREFIX, {
    router: appRouter,
    // An SSE subscription cannot send headers: the SDK passes the token as a connection parameter.
    createContext: ({ req, res, info }: { req: FastifyRequest; res: FastifyReply; info: { connectionParams: Record<string, string> | null } }) => {
      const context = contextFor('trpc', req, res, req.url);
      const token = info.connectionParams?.token;
      return token && !context.authorization ? { ...context, authorization: `Bearer ${token}` } : context;
    },
    onError: logFailure,
    // A refusal's own headers (Retry-After of a 503) as on REST.
    responseMeta: ({ errors }: { errors: TRPCError[] }) => ({
      headers: Object.assign(challengeHeaders(errors), ...errors.map((error) => domainErrorOf(error)?.headers ?? {})),
    }),
  } as never);

  await app.register(swagger, { mode: 'static', specification: { document: document as never } });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { persistAuthorization: true } });
  await registerWebApp(app);

  registerAdminRoutes(app, database, config.adminToken, backupFiles(config));
  registerEventStreamRoute(app, { auth: services.auth, events: services.events, db: database.db, heartbeatMs: config.eventHeartbeatMs });
  registerUnsubscribeRoutes(app, services.notificationSettings);
  registerCalendarFeedRoute(app, services.calendarFeed);
  registerNotificationStreamRoute(app, { auth: services.auth, notifications: services.notifications, importProgress, heartbeatMs: config.eventHeartbeatMs });
  await registerAttachmentRoutes(app, { auth: services.auth, attachments: services.attachments, maxBytes: config.attachments.maxBytes, settleEvents: dispatcher.settle });
  registerExportRoutes(app, { auth: services.auth, exports: services.exports });
  await registerImportRoutes(app, { auth: services.auth, imports: services.imports, maxBytes: config.imports.maxBytes, wake: importWorker.wake });
  // The due-reminder job, for operator commands and tests that run it at a moment of their choosing.
  app.decorate('dueReminders', dueReminders);
  registerMetricsRoute(app, metrics);

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    try {
      await database.ping();
      return { status: 'ready' };
    } catch {
      return reply.code(503).send(errorBody(503, 'Database unreachable'));
    }
  });

  return app;
}
