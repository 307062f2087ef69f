import type { Db } from '@tasklane/db';
import { createEventsService } from './activity/follow';
import type { ActivityHub } from './activity/hub';
import { createActivityService } from './activity/service';
import type { PasswordHasher } from './auth/password';
import type { WebhookConfig } from './config';
import { createAuthService } from './auth/service';
import type { TokenStateCache } from './auth/token-state';
import type { TokenService } from './auth/tokens';
import { createCommentsService } from './comments/service';
import { createIdempotencyService } from './idempotency/service';
import { transactionAware } from './lib/ambient-transaction';
import { createMembersService } from './members/service';
import { createProjectsService } from './projects/service';
import type { Metrics } from './metrics';
import { createTasksService } from './tasks/service';
import { createWebhooksService } from './webhooks/service';

/** Every resource's service over one database; procedures reach them through the context. */
export function createServices(
  pool: Db,
  auth: { passwords: PasswordHasher; tokens: TokenService; tokenStates: TokenStateCache },
  live: { hub: ActivityHub; metrics: Metrics; webhooks: WebhookConfig; eventMaxQueued: number },
) {
  // Queries join a transaction opened around the call (an idempotent create), else use the pool.
  const db = transactionAware(pool);
  const tasks = createTasksService(db);
  return {
    auth: createAuthService(db, auth.passwords, auth.tokens, auth.tokenStates),
    projects: createProjectsService(db),
    members: createMembersService(db),
    tasks,
    comments: createCommentsService(db, tasks),
    activity: createActivityService(db, tasks),
    idempotency: createIdempotencyService(db),
    events: createEventsService(db, live.hub, live.metrics.eventStreams, live.eventMaxQueued),
    webhooks: createWebhooksService(db, live.webhooks),
  };
}

export type Services = ReturnType<typeof createServices>;
