import { ACTIVITY_TYPES, type ActivityType, type CreatedWebhook, type Delivery, type Webhook } from '@tasklane/schemas';
import { useState } from 'preact/hooks';
import { collect, keys } from '../data';
import { canAdminister, formatTime } from '../format';
import { queryClient, useAction, useEditorSave, useQuery } from '../hooks';
import { client } from '../session';
import { announce, ConfirmButton, ErrorNote, Loading, Page } from '../ui';

/** Shown when a webhook changed elsewhere since the page loaded it: the change was refused (412) and the list reloaded. */
export const WEBHOOK_CHANGED_ELSEWHERE = 'Someone else changed this webhook meanwhile; the list was reloaded, so check it and try again.';

const webhookKeys = {
  list: (projectId: string) => ['webhooks', projectId] as const,
  deliveries: (projectId: string, webhookId: string) => ['webhooks', projectId, webhookId, 'deliveries'] as const,
};

const loadWebhooks = (projectId: string): Promise<Webhook[]> => collect(client.paginate(client.webhooks.list, { id: projectId, limit: 100 }));

/**
 * A project's webhooks (ADMIN and owner, as the server's `webhooks.manage`): the list with each
 * one's state, a form to add one (URL and the event types to send; none ticked: all), and per
 * webhook its delivery log, a test delivery, enable/disable, a change of URL or events, a new
 * signing secret, and delete. Changes carry If-Match of the version shown, as the project editors do.
 * A secret (a new webhook's or a rotated one) is shown once, with a copy button.
 */
export function WebhooksPage({ params }: { params: { projectId: string } }) {
  const { projectId } = params;
  const project = useQuery(keys.project(projectId), () => client.projects.get({ id: projectId }));
  const admin = canAdminister(project.data?.role);
  if (project.error) return <Page title="Webhooks"><ErrorNote error={project.error} /></Page>;
  if (!project.data) return <Loading what="the project" />;
  return (
    <Page
      title={`${project.data.name}: webhooks`}
      actions={
        <nav aria-label="Project">
          <a href={`/projects/${projectId}`}>Board</a> <a href={`/projects/${projectId}/members`}>Members</a>
        </nav>
      }
    >
      <p class="muted">
        Tasklane POSTs each change of the project to your URL as JSON, signed with the webhook's secret (the <code>X-Tasklane-Signature</code> header). Failed deliveries are retried
        for a day; a webhook that keeps failing is disabled.
      </p>
      {admin ? <Webhooks projectId={projectId} /> : <p class="muted">Only admins can see and manage webhooks.</p>}
    </Page>
  );
}

function Webhooks({ projectId }: { projectId: string }) {
  const webhooks = useQuery(webhookKeys.list(projectId), () => loadWebhooks(projectId));
  // The secret on show: a new webhook's, or the one a rotation just made (the API shows it once).
  const [shown, setShown] = useState<{ webhook: CreatedWebhook; rotated: boolean } | undefined>(undefined);
  const { busy, error, save } = useEditorSave({
    changedElsewhere: WEBHOOK_CHANGED_ELSEWHERE,
    refresh: () => void queryClient.invalidateQueries({ queryKey: webhookKeys.list(projectId) }),
  });
  const list = webhooks.data ?? [];
  return (
    <>
      <NewWebhook
        projectId={projectId}
        onCreated={(webhook) => {
          setShown({ webhook, rotated: false });
          webhooks.setData((items) => [...(items ?? []), webhook]);
        }}
      />
      {shown && <SecretNotice key={shown.webhook.secret} webhook={shown.webhook} rotated={shown.rotated} />}
      <section class="stack" aria-labelledby="webhooks-title" aria-busy={busy || webhooks.loading}>
        <h2 id="webhooks-title">Webhooks</h2>
        <ErrorNote error={error ?? webhooks.error} />
        {webhooks.loading && !webhooks.data ? (
          <Loading what="the webhooks" />
        ) : list.length === 0 ? (
          <p class="muted">No webhooks yet. Add one above with the URL of the service that should hear about this project's changes.</p>
        ) : (
          <ul class="stack webhook-list">
            {list.map((webhook) => (
              <WebhookItem
                key={webhook.id}
                projectId={projectId}
                webhook={webhook}
                busy={busy}
                onUpdate={(patch, what) => save(what, () => client.webhooks.update({ id: projectId, webhookId: webhook.id, ...patch }, { ifMatch: webhook }))}
                onDelete={() => void save('Webhook deleted.', () => client.webhooks.delete({ id: projectId, webhookId: webhook.id }, { ifMatch: webhook }), true)}
                onRotate={async () => {
                  let rotated: CreatedWebhook | undefined;
                  const done = await save('New signing secret made.', async () => {
                    rotated = await client.webhooks.rotateSecret({ id: projectId, webhookId: webhook.id }, { ifMatch: webhook });
                    return rotated;
                  });
                  if (done && rotated) setShown({ webhook: rotated, rotated: true });
                  return done;
                }}
              />
            ))}
          </ul>
        )}
      </section>
    </>
  );
}

/** A signing secret the API shows only once, to copy (or select, without clipboard permission). */
function SecretNotice({ webhook, rotated }: { webhook: CreatedWebhook; rotated: boolean }) {
  const [copied, setCopied] = useState(false);
  const inputId = `secret-${webhook.id}`;
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(webhook.secret);
      setCopied(true);
    } catch {
      // No clipboard permission: the secret is selected for a manual copy instead.
      document.querySelector<HTMLInputElement>(`#${CSS.escape(inputId)}`)?.select();
    }
  };
  return (
    <div class="card notice stack">
      <p>
        {rotated ? 'The new signing secret' : 'The signing secret'} of the webhook to <strong>{webhook.url}</strong>. Copy it now: it is not shown again.
        {rotated && ' Deliveries from now on are signed with it, so give it to your receiver.'}
      </p>
      <div class="row">
        <label class="grow">
          Signing secret
          <input id={inputId} readOnly value={webhook.secret} onFocus={(e) => e.currentTarget.select()} />
        </label>
        <button type="button" onClick={() => void copy()}>
          Copy secret
        </button>
      </div>
      {copied && (
        <p class="muted small" role="status">
          Copied.
        </p>
      )}
    </div>
  );
}

/** The event types as checkboxes; none ticked means every type (the API's default). */
function EventChoice({ legend, chosen, onChange }: { legend: string; chosen: ActivityType[]; onChange: (events: ActivityType[]) => void }) {
  return (
    <fieldset>
      <legend class="muted small">{legend}</legend>
      <div class="row event-types">
        {ACTIVITY_TYPES.map((type) => (
          <label key={type} class="check">
            <input
              type="checkbox"
              checked={chosen.includes(type)}
              onChange={(e) => onChange(e.currentTarget.checked ? [...chosen, type] : chosen.filter((item) => item !== type))}
            />
            {type}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

function NewWebhook({ projectId, onCreated }: { projectId: string; onCreated: (webhook: CreatedWebhook) => void }) {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<ActivityType[]>([]);
  const { busy, error, run } = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const webhook = await run(() => client.webhooks.create({ id: projectId, url: url.trim(), events }));
    if (!webhook) return;
    onCreated(webhook);
    setUrl('');
    setEvents([]);
  };
  return (
    <form class="card stack" onSubmit={submit} aria-label="Add a webhook">
      <label>
        Payload URL
        <input type="url" value={url} onInput={(e) => setUrl(e.currentTarget.value)} required maxLength={2000} placeholder="https://hooks.example.com/tasklane" />
      </label>
      <EventChoice legend="Events to send (none ticked: every event)" chosen={events} onChange={setEvents} />
      <ErrorNote error={error} />
      <button type="submit" class="primary" disabled={busy}>
        Add webhook
      </button>
    </form>
  );
}

function WebhookItem(props: {
  projectId: string;
  webhook: Webhook;
  busy: boolean;
  onUpdate: (patch: { url?: string; events?: ActivityType[]; active?: boolean }, what: string) => Promise<boolean>;
  onDelete: () => void;
  onRotate: () => Promise<boolean>;
}) {
  const { webhook, busy } = props;
  const [deleting, setDeleting] = useState(false);
  const [rotating, setRotating] = useState(false);
  const test = useAction();
  const [editing, setEditing] = useState(false);
  const [showDeliveries, setShowDeliveries] = useState(false);
  const headingId = `webhook-${webhook.id}`;
  return (
    <li class="card stack" data-webhook-id={webhook.id}>
      <h3 id={headingId} class="webhook-url">
        {webhook.url}
      </h3>
      <p class="small">
        <strong>{webhook.active ? 'Enabled' : 'Disabled'}</strong>
        {webhook.disabledReason && <span> (disabled by Tasklane: {webhook.disabledReason})</span>}
        {' · '}
        {webhook.events.length === 0 ? 'Every event' : webhook.events.join(', ')}
        {webhook.consecutiveFailures > 0 && <span> · {webhook.consecutiveFailures} failed attempts since the last delivery</span>}
      </p>
      <div class="row">
        <button type="button" disabled={busy} onClick={() => void props.onUpdate({ active: !webhook.active }, webhook.active ? 'Webhook disabled.' : 'Webhook enabled.')}>
          {webhook.active ? 'Disable' : 'Enable'}
        </button>
        <button type="button" aria-expanded={editing} onClick={() => setEditing(!editing)}>
          Edit
        </button>
        <button type="button" aria-expanded={showDeliveries} onClick={() => setShowDeliveries(!showDeliveries)}>
          Deliveries
        </button>
        <button
          type="button"
          disabled={test.busy}
          onClick={async () => {
            // Sent to a disabled webhook too: how a fixed URL is checked before enabling it again.
            if (!(await test.run(() => client.webhooks.test({ id: props.projectId, webhookId: webhook.id })))) return;
            announce('Test delivery queued; its result shows in the deliveries.');
            setShowDeliveries(true);
            void queryClient.invalidateQueries({ queryKey: webhookKeys.deliveries(props.projectId, webhook.id) });
          }}
        >
          Send test
        </button>
        <ConfirmButton
          label="Rotate secret"
          question={`Make a new signing secret for the webhook to ${webhook.url}? The old one stops working at once: deliveries from now on are signed with the new one.`}
          confirmLabel="Make a new secret"
          onConfirm={() => void props.onRotate().then(() => setRotating(false))}
          busy={busy}
          open={rotating}
          setOpen={setRotating}
        />
        <ConfirmButton
          label="Delete"
          question={`Delete the webhook to ${webhook.url}? Its pending deliveries are dropped.`}
          confirmLabel="Delete webhook"
          onConfirm={props.onDelete}
          busy={busy}
          open={deleting}
          setOpen={setDeleting}
        />
      </div>
      <ErrorNote error={test.error} />
      {editing && <EditWebhook webhook={webhook} busy={busy} onSave={async (patch) => (await props.onUpdate(patch, 'Webhook saved.')) && setEditing(false)} />}
      {showDeliveries && <Deliveries projectId={props.projectId} webhook={webhook} />}
    </li>
  );
}

function EditWebhook({ webhook, busy, onSave }: { webhook: Webhook; busy: boolean; onSave: (patch: { url: string; events: ActivityType[] }) => void }) {
  const [url, setUrl] = useState(webhook.url);
  const [events, setEvents] = useState<ActivityType[]>(webhook.events);
  return (
    <form
      class="stack"
      aria-label={`Edit the webhook to ${webhook.url}`}
      onSubmit={(event) => {
        event.preventDefault();
        onSave({ url: url.trim(), events });
      }}
    >
      <label>
        Payload URL
        <input type="url" value={url} onInput={(e) => setUrl(e.currentTarget.value)} required maxLength={2000} />
      </label>
      <EventChoice legend="Events to send (none ticked: every event)" chosen={events} onChange={setEvents} />
      <button type="submit" class="primary" disabled={busy}>
        Save webhook
      </button>
    </form>
  );
}

const STATE_LABELS = { PENDING: 'Pending', DELIVERED: 'Delivered', FAILED: 'Failed' } as const satisfies Record<Delivery['state'], string>;

/** The webhook's delivery log, newest first (the server keeps a week of it). */
function Deliveries({ projectId, webhook }: { projectId: string; webhook: Webhook }) {
  const deliveries = useQuery(webhookKeys.deliveries(projectId, webhook.id), () =>
    client.webhooks.deliveries({ id: projectId, webhookId: webhook.id, limit: 50 }).then((page) => page.items),
  );
  return (
    <div class="stack">
      <div class="row">
        <h4 class="grow">Recent deliveries</h4>
        <button type="button" disabled={deliveries.loading} onClick={() => deliveries.reload()}>
          Refresh deliveries
        </button>
      </div>
      <ErrorNote error={deliveries.error} />
      {deliveries.loading && !deliveries.data ? (
        <Loading what="the deliveries" />
      ) : deliveries.data?.length === 0 ? (
        <p class="muted">No deliveries yet. One is sent when something in the project changes that this webhook listens to, or when you send a test.</p>
      ) : (
        <table class="members">
          <caption class="visually-hidden">Deliveries of the webhook to {webhook.url}</caption>
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">State</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last status</th>
              <th scope="col">Error</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.data?.map((delivery) => (
              <tr key={delivery.id} data-delivery-id={delivery.id}>
                <td>{delivery.eventType}</td>
                <td>{STATE_LABELS[delivery.state]}</td>
                <td>{delivery.attempts}</td>
                <td>{delivery.lastStatus ?? '—'}</td>
                <td>{delivery.lastError ?? '—'}</td>
                <td>{formatTime(delivery.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
