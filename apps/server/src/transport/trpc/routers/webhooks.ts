import {
  CreatedWebhookSchema,
  CreateWebhookInput,
  DeliverySchema,
  ListDeliveriesInput,
  ListWebhooksInput,
  MessageSchema,
  UpdateWebhookInput,
  WebhookPathInput,
  WebhookSchema,
} from '@tasklane/schemas';
import { acceptedVersions, withETag } from '../../../platform/versions';
import { protectedProcedure, router } from '../init';
import { pagedList } from '../paged-list';

const tags = ['webhooks'];
const base = '/projects/{id}/webhooks';
const adminOnly = 'ADMIN or owner.';
const staleRefused = 'With If-Match, a stale version is refused (412).';

export const webhooksRouter = router({
  create: protectedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: base,
        tags,
        summary: 'Create a webhook',
        description: `Changes of the project are POSTed to \`url\` as JSON, signed with the secret returned here once (X-Tasklane-Signature: sha256=HMAC of "timestamp.body"). See docs/events.md. ${adminOnly}`,
      },
      successStatus: 201,
      location: '/projects/{projectId}/webhooks/{id}',
      errors: [403],
      headers: ['ETag'],
    })
    .input(CreateWebhookInput)
    .output(CreatedWebhookSchema)
    .mutation(async ({ ctx, input }) => withETag(ctx.response, await ctx.services.webhooks.create(ctx.userId, input))),

  ...pagedList('list', {
    meta: { openapi: { method: 'GET', path: base, tags, summary: "List a project's webhooks", description: `Oldest first, paged by cursor. ${adminOnly}` }, errors: [403] },
    input: ListWebhooksInput,
    item: WebhookSchema,
    list: (ctx, input) => ctx.services.webhooks.list(ctx.userId, input),
  }),

  get: protectedProcedure
    .meta({ openapi: { method: 'GET', path: `${base}/{webhookId}`, tags, summary: 'Get a webhook', description: adminOnly }, errors: [403], headers: ['ETag'] })
    .input(WebhookPathInput)
    .output(WebhookSchema)
    .query(async ({ ctx, input }) => withETag(ctx.response, await ctx.services.webhooks.get(ctx.userId, input))),

  update: protectedProcedure
    .meta({
      openapi: { method: 'PATCH', path: `${base}/{webhookId}`, tags, summary: 'Update a webhook', description: `URL, event types, active. Setting \`active: true\` re-enables a webhook the service disabled. ${adminOnly} ${staleRefused}` },
      errors: [403, 412],
      headers: ['ETag'],
      requestHeaders: ['If-Match'],
    })
    .input(UpdateWebhookInput)
    .output(WebhookSchema)
    .mutation(async ({ ctx, input }) => withETag(ctx.response, await ctx.services.webhooks.update(ctx.userId, input, acceptedVersions(ctx.ifMatch)))),

  delete: protectedProcedure
    .meta({
      openapi: { method: 'DELETE', path: `${base}/{webhookId}`, tags, summary: 'Delete a webhook', description: `Its pending deliveries are dropped. ${adminOnly} ${staleRefused}` },
      errors: [403, 412],
      requestHeaders: ['If-Match'],
    })
    .input(WebhookPathInput)
    .output(MessageSchema)
    .mutation(({ ctx, input }) => ctx.services.webhooks.remove(ctx.userId, input, acceptedVersions(ctx.ifMatch))),

  test: protectedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: `${base}/{webhookId}/test`,
        tags,
        summary: 'Send a test delivery',
        description: `Queues a \`webhook.test\` delivery to this webhook only, signed and sent like every delivery, and returns it as the delivery log lists it (202: follow its state there). A disabled webhook is sent it too, so a fixed URL can be checked before re-enabling; a test is attempted once and never counts towards disabling the webhook. Send no body. ${adminOnly}`,
        successDescription: 'Accepted',
      },
      successStatus: 202,
      errors: [403],
    })
    .input(WebhookPathInput)
    .output(DeliverySchema)
    .mutation(async ({ ctx, input }) => {
      const delivery = await ctx.services.webhooks.test(ctx.userId, input);
      ctx.response.status = 202;
      return delivery;
    }),

  rotateSecret: protectedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: `${base}/{webhookId}/rotate-secret`,
        tags,
        summary: "Rotate a webhook's secret",
        description: `Replaces the signing secret with a new one, returned only in this response; every delivery attempt from now on (pending retries included) is signed with it. Send no body. ${adminOnly} ${staleRefused}`,
      },
      errors: [403, 412],
      headers: ['ETag'],
      requestHeaders: ['If-Match'],
    })
    .input(WebhookPathInput)
    .output(CreatedWebhookSchema)
    .mutation(async ({ ctx, input }) => withETag(ctx.response, await ctx.services.webhooks.rotateSecret(ctx.userId, input, acceptedVersions(ctx.ifMatch)))),

  ...pagedList('deliveries', {
    meta: {
      openapi: { method: 'GET', path: `${base}/{webhookId}/deliveries`, tags, summary: "A webhook's delivery log", description: `Newest first, paged by cursor: state, attempts, last HTTP status and error. ${adminOnly}` },
      errors: [403],
    },
    input: ListDeliveriesInput,
    item: DeliverySchema,
    list: (ctx, input) => ctx.services.webhooks.deliveries(ctx.userId, input),
  }),
});
