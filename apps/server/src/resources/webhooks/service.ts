import { randomBytes } from 'node:crypto';
import type { Db } from '@tasklane/db';
import type {
  ActivityType,
  CreatedWebhook,
  CreateWebhookInput,
  Delivery,
  ListDeliveriesInput,
  ListWebhooksInput,
  UpdateWebhookInput,
  Webhook,
  WebhookPathInput,
} from '@tasklane/schemas';
import { WEBHOOK_TEST_EVENT } from '@tasklane/schemas';
import { requireProjectAccess } from '../policy/access';
import type { WebhookConfig } from '../../platform/config';
import { isId, newId } from '../../platform/ids';
import { cursorChecks, decodeCursor, type Page, pageSize, toPage } from '../../platform/paging';
import { requireVersion } from '../../platform/versions';
import { authorize } from '../policy/policy';
import { transactionIn } from '../../events/scope';
import { notFound } from '../../platform/errors';
import * as store from './store';
import { checkTarget } from './target';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

const newSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;

/** The secret never leaves the service after creation. */
export const toWebhook = (row: store.WebhookRow): Webhook => ({
  id: row.id,
  projectId: row.projectId!,
  url: row.url,
  events: row.events as ActivityType[],
  active: row.active,
  disabledReason: row.disabledReason,
  consecutiveFailures: row.consecutiveFailures,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

const toDelivery = (row: store.DeliveryRow): Delivery => ({
  id: String(row.id),
  eventId: row.eventId === null ? null : String(row.eventId),
  eventType: row.eventType as Delivery['eventType'],
  state: row.state,
  attempts: row.attempts,
  lastStatus: row.lastStatus,
  lastError: row.lastError,
  nextAttemptAt: row.state === 'PENDING' ? row.nextAttemptAt.toISOString() : null,
  deliveredAt: iso(row.deliveredAt),
  createdAt: row.createdAt.toISOString(),
});

export function createWebhooksService(db: Db, config: WebhookConfig) {
  /** ADMIN or owner, and the webhook must belong to the project. */
  async function loadWebhook(userId: string, { id: projectId, webhookId }: WebhookPathInput): Promise<store.WebhookRow> {
    authorize(await requireProjectAccess(db, projectId, userId), 'webhooks.manage');
    const row = isId(webhookId) ? await store.findWebhook(db, projectId, webhookId) : undefined;
    if (!row) throw notFound('Webhook');
    return row;
  }

  return {
    async create(userId: string, { id: projectId, url, events = [], active = true }: CreateWebhookInput): Promise<CreatedWebhook> {
      authorize(await requireProjectAccess(db, projectId, userId), 'webhooks.manage');
      await checkTarget(url, config.allowPrivate);
      const secret = newSecret();
      const row = await transactionIn(db, { projectId }, 'Project', (tx) =>
        store.insertWebhook(tx, { id: newId(), projectId, url, events: [...new Set(events)], active, secret, createdById: userId }),
      );
      return { ...toWebhook(row), secret };
    },

    async list(userId: string, { id: projectId, ...query }: ListWebhooksInput): Promise<Page<Webhook>> {
      authorize(await requireProjectAccess(db, projectId, userId), 'webhooks.manage');
      const limit = pageSize(query.limit);
      const [afterId] = decodeCursor(query.cursor, [cursorChecks.id]) ?? [];
      const rows = await store.listWebhooks(db, projectId, typeof afterId === 'string' ? afterId : undefined, limit + 1);
      return toPage(rows, limit, toWebhook, (row) => [row.id]);
    },

    async get(userId: string, path: WebhookPathInput): Promise<Webhook> {
      return toWebhook(await loadWebhook(userId, path));
    },

    /** Re-enabling clears the reason and the failure count; pending deliveries then resume. */
    async update(userId: string, { id, webhookId, url, events, active }: UpdateWebhookInput, versions?: Date[]): Promise<Webhook> {
      await loadWebhook(userId, { id, webhookId });
      if (url !== undefined) await checkTarget(url, config.allowPrivate);
      return db.transaction(async (tx) => {
        requireVersion(await store.findWebhook(tx, id, webhookId, { forUpdate: true }), versions, 'Webhook');
        const row = await store.updateWebhook(tx, id, webhookId, {
          ...(url !== undefined ? { url } : {}),
          ...(events !== undefined ? { events: [...new Set(events)] } : {}),
          ...(active !== undefined ? { active } : {}),
          ...(active === true ? { disabledReason: null, consecutiveFailures: 0 } : {}),
        });
        if (!row) throw notFound('Webhook');
        return toWebhook(row);
      });
    },

    async remove(userId: string, path: WebhookPathInput, versions?: Date[]): Promise<{ message: string }> {
      await loadWebhook(userId, path);
      await db.transaction(async (tx) => {
        requireVersion(await store.findWebhook(tx, path.id, path.webhookId, { forUpdate: true }), versions, 'Webhook');
        if (!(await store.deleteWebhook(tx, path.id, path.webhookId))) throw notFound('Webhook');
      });
      return { message: 'Webhook deleted' };
    },

    /**
     * Queues a `webhook.test` delivery to this webhook only, through the delivery worker like any
     * other (signed, logged). A disabled webhook can be tested: it is how an admin checks a fixed URL
     * before re-enabling it. The body has the shape of an event's, with a null id (no event caused it).
     */
    async test(userId: string, path: WebhookPathInput): Promise<Delivery> {
      await loadWebhook(userId, path);
      return db.transaction(async (tx) => {
        const row = await store.findWebhook(tx, path.id, path.webhookId, { forUpdate: true });
        if (!row) throw notFound('Webhook');
        const payload = {
          id: null,
          type: WEBHOOK_TEST_EVENT,
          time: new Date().toISOString(),
          actorId: userId,
          projectId: path.id,
          taskId: null,
          resource: toWebhook(row),
          changes: null,
        };
        return toDelivery(await store.insertTestDelivery(tx, row.id, WEBHOOK_TEST_EVENT, JSON.stringify(payload)));
      });
    },

    /**
     * A new signing secret, returned only here. Every attempt from the commit on is signed with it,
     * pending and retried deliveries included (the sender reads the secret when it claims one).
     */
    async rotateSecret(userId: string, path: WebhookPathInput, versions?: Date[]): Promise<CreatedWebhook> {
      await loadWebhook(userId, path);
      const secret = newSecret();
      return db.transaction(async (tx) => {
        requireVersion(await store.findWebhook(tx, path.id, path.webhookId, { forUpdate: true }), versions, 'Webhook');
        const row = await store.updateWebhook(tx, path.id, path.webhookId, { secret });
        if (!row) throw notFound('Webhook');
        return { ...toWebhook(row), secret };
      });
    },

    async deliveries(userId: string, { id, webhookId, ...query }: ListDeliveriesInput): Promise<Page<Delivery>> {
      await loadWebhook(userId, { id, webhookId });
      const limit = pageSize(query.limit);
      const [beforeId] = decodeCursor(query.cursor, [cursorChecks.positiveInteger]) ?? [];
      const rows = await store.listDeliveries(db, webhookId, typeof beforeId === 'number' ? beforeId : undefined, limit + 1);
      return toPage(rows, limit, toDelivery, (row) => [row.id]);
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;

/** For the projects service, in a project's deletion: its webhooks live on, detached, until its last events are delivered. */
export const detachProjectWebhooks = (tx: Db, projectId: string) => store.detachProjectWebhooks(tx, projectId);
