import type { Db } from '@tasklane/db';
import type { AuthProviders, Notification } from '@tasklane/schemas';
import { createAccessTokensService } from './access-tokens/service';
import { createEventsService } from './activity/follow';
import type { ActivityHub } from './activity/hub';
import { createActivityService } from './activity/service';
import type { PasswordHasher } from './auth/password';
import type { OidcConfig, WebhookConfig } from '../platform/config';
import type { OneTimeCodes } from './auth/one-time-codes';
import { createPasswordResetService } from './auth/password-reset';
import { createAuthService } from './auth/service';
import type { TokenStateCache } from './credentials/token-state';
import type { TokenService } from './credentials/tokens';
import { type AttachmentsOptions, createAttachmentsService } from './attachments/service';
import { createCalendarFeedService } from './calendar-feed/service';
import { createCommentsService } from './comments/service';
import { createExportService } from './export/service';
import { createIdempotencyService } from './idempotency/service';
import { createImportsService, type ImportsOptions } from './imports/service';
import { createLabelsService } from './labels/service';
import { createSearchService } from './search/service';
import { transactionAware } from '../platform/ambient-transaction';
import type { BackgroundQueue } from '../platform/background';
import type { MailOutbox } from '../platform/mail/outbox';
import { createMembersService } from './members/service';
import type { InvitationTokens } from './members/invitation-mail';
import { createNotificationSettingsService } from './notification-email/service';
import type { UnsubscribeTokens } from './notification-email/unsubscribe-token';
import type { FeedHub } from '../platform/feed-hub';
import { createNotificationsService } from './notifications/service';
import { createProjectsService } from './projects/service';
import { createRelationsService } from './relations/service';
import { createSsoService } from './sso/service';
import { createStatesService } from './states/service';
import { createFieldsService } from './fields/service';
import type { Metrics } from '../platform/metrics';
import { createTasksService } from './tasks/service';
import { createTimeTrackingService } from './time-tracking/service';
import { createViewsService } from './views/service';
import { createWebhooksService } from './webhooks/service';

/** How people sign in, from the configuration. */
export interface IdentityOptions {
  publicUrl: string;
  passwordLogin: boolean;
  oidc: OidcConfig | undefined;
  /** The server's secret, from which sign-on cookies' keys are derived. */
  secret: string;
  codes: OneTimeCodes;
  /** The tokens of invitations' links (members/invitation-mail.ts). */
  invitationTokens: InvitationTokens;
  mail: MailOutbox;
  /** Work requests start and do not wait for (last-used stamps, password reset emails). */
  background: BackgroundQueue;
  /** Notification email: the unsubscribe links' tokens and the digest's hour and clock. */
  notificationEmail: { tokens: UnsubscribeTokens; digestHour: number; now: () => Date };
}

/** Every resource's service over one database; procedures reach them through the context. */
export function createServices(
  pool: Db,
  auth: { passwords: PasswordHasher; tokens: TokenService; tokenStates: TokenStateCache },
  live: { hub: ActivityHub; notificationHub: FeedHub<Notification>; metrics: Metrics; webhooks: WebhookConfig; eventMaxQueued: number },
  identity: IdentityOptions,
  attachments: AttachmentsOptions,
  imports: ImportsOptions,
) {
  // Queries join a transaction opened around the call (an idempotent create), else use the pool.
  const db = transactionAware(pool);
  const tasks = createTasksService(db);
  const attachmentsService = createAttachmentsService(db, tasks, attachments);
  const { passwords, tokenStates } = auth;
  const { codes, mail, background, passwordLogin } = identity;
  const accessTokens = createAccessTokensService(db, tokenStates);
  const authService = createAuthService(db, passwords, auth.tokens, tokenStates, { passwordLogin, accessTokens, background });
  const providers: AuthProviders = {
    password: passwordLogin,
    passwordReset: passwordLogin && mail.enabled,
    oidc: identity.oidc ? { name: identity.oidc.name } : null,
  };
  const services = {
    auth: authService,
    accessTokens,
    passwordReset: createPasswordResetService(db, { passwords, codes, mail, tokenStates, background, passwordLogin }),
    sso: createSsoService(db, authService, codes, { config: identity.oidc, publicUrl: identity.publicUrl, secret: identity.secret }),
    providers,
    publicUrl: identity.publicUrl,
    projects: createProjectsService(db),
    members: createMembersService(db, { mail, publicUrl: identity.publicUrl, tokens: identity.invitationTokens }),
    tasks,
    comments: createCommentsService(db, tasks, attachmentsService),
    attachments: attachmentsService,
    timeTracking: createTimeTrackingService(db, tasks),
    labels: createLabelsService(db),
    views: createViewsService(db),
    search: createSearchService(db),
    states: createStatesService(db),
    fields: createFieldsService(db),
    relations: createRelationsService(db, tasks),
    activity: createActivityService(db, tasks),
    idempotency: createIdempotencyService(db),
    events: createEventsService(db, live.hub, live.metrics.eventStreams, live.eventMaxQueued),
    webhooks: createWebhooksService(db, live.webhooks),
    notificationSettings: createNotificationSettingsService(db, identity.notificationEmail),
    calendarFeed: createCalendarFeedService(db, identity.publicUrl),
    notifications: createNotificationsService(db, tasks, { hub: live.notificationHub, openStreams: live.metrics.eventStreams, maxQueued: live.eventMaxQueued }),
  };
  return { ...services, exports: createExportService(db, services), imports: createImportsService(db, services, imports) };
}

export type Services = ReturnType<typeof createServices>;
