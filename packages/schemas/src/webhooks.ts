import { z } from 'zod';
import { ActivityTypeSchema } from './activity';
import { IdSchema, PageQueryShape, PathIdSchema, TimestampSchema } from './common';
import { text } from './text';

const pathIds = { id: PathIdSchema, webhookId: PathIdSchema };

const TargetUrlSchema = text({ max: 2000 })
  .pipe(z.url({ protocol: /^https?$/, error: 'url must be an http:// or https:// URL' }))
  .meta({ description: 'Where deliveries are POSTed. Private, loopback and link-local addresses are refused (unless the server sets WEBHOOK_ALLOW_PRIVATE=true).' });

const EventsSchema = z
  .array(ActivityTypeSchema)
  .max(50)
  .meta({ description: 'Event types to deliver; empty (the default) means every type' });

export const WebhookSchema = z
  .object({
    id: IdSchema,
    projectId: IdSchema,
    url: z.string(),
    events: z.array(ActivityTypeSchema),
    active: z.boolean(),
    disabledReason: z.string().nullable().meta({ description: 'Why the service disabled it after failing deliveries; null when enabled or disabled by a user' }),
    consecutiveFailures: z.number().int().meta({ description: 'Failed attempts since the last successful delivery' }),
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
  })
  .meta({ id: 'Webhook' });

export const CreatedWebhookSchema = WebhookSchema.extend({
  secret: z.string().meta({ description: 'The signing secret, shown only in this response' }),
}).meta({ id: 'CreatedWebhook' });

export const CreateWebhookInput = z
  .object({ id: PathIdSchema, url: TargetUrlSchema, events: EventsSchema.optional(), active: z.boolean().optional() })
  .strict()
  .meta({ examples: [{ url: 'https://hooks.example.com/tasklane', events: ['task.created', 'task.updated'] }] });

export const UpdateWebhookInput = z
  .object({ ...pathIds, url: TargetUrlSchema.optional(), events: EventsSchema.optional(), active: z.boolean().optional() })
  .strict()
  .meta({ examples: [{ active: true }] });

export const WebhookPathInput = z.object(pathIds).strict();
export const ListWebhooksInput = z.object({ id: PathIdSchema, ...PageQueryShape }).strict();
export const ListDeliveriesInput = z.object({ ...pathIds, ...PageQueryShape }).strict();

/** The event type of a test delivery (POST …/webhooks/{webhookId}/test): not an event of the project, sent to one webhook. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

export const DeliveryEventTypeSchema = z
  .union([ActivityTypeSchema, z.literal(WEBHOOK_TEST_EVENT)])
  .meta({ id: 'DeliveryEventType', description: 'The event type delivered; `webhook.test` for a test delivery' });

export const DELIVERY_STATES = ['PENDING', 'DELIVERED', 'FAILED'] as const;

export const DeliverySchema = z
  .object({
    id: z.string().meta({ description: 'Delivery id (also sent as X-Tasklane-Delivery)' }),
    eventId: z.string().nullable().meta({ description: 'The event (activity) id: the `id` of the payload; null for a test delivery' }),
    eventType: DeliveryEventTypeSchema,
    state: z.enum(DELIVERY_STATES).meta({ description: 'PENDING until delivered (2xx) or given up after the retry window' }),
    attempts: z.number().int(),
    lastStatus: z.number().int().nullable().meta({ description: 'HTTP status of the last attempt; null when it got no response' }),
    lastError: z.string().nullable(),
    nextAttemptAt: TimestampSchema.nullable(),
    deliveredAt: TimestampSchema.nullable(),
    createdAt: TimestampSchema,
  })
  .meta({ id: 'WebhookDelivery' });

export type Webhook = z.infer<typeof WebhookSchema>;
export type CreatedWebhook = z.infer<typeof CreatedWebhookSchema>;
export type CreateWebhookInput = z.infer<typeof CreateWebhookInput>;
export type UpdateWebhookInput = z.infer<typeof UpdateWebhookInput>;
export type WebhookPathInput = z.infer<typeof WebhookPathInput>;
export type ListWebhooksInput = z.infer<typeof ListWebhooksInput>;
export type ListDeliveriesInput = z.infer<typeof ListDeliveriesInput>;
export type Delivery = z.infer<typeof DeliverySchema>;
export type DeliveryEventType = z.infer<typeof DeliveryEventTypeSchema>;
