import type { ActivityType, CreatedWebhook, Delivery, Webhook } from '@tasklane/schemas';
import { ACTIVITY_TYPES } from '@tasklane/schemas/constants';
import { useState } from 'preact/hooks';
import { collect, keys } from '../data';
import { canAdminister, formatTime } from '../format';
import { queryClient, useAction, useEditorSave, useQuery } from '../hooks';
import { client } from '../session';
import { t } from '../i18n';
import { announce, ConfirmButton, EmptyState, ErrorNote, Loading, Page } from '../ui';

/** The header the signature travels in: a name of the protocol, the same in every language. */
const SIGNATURE_HEADER = 'X-Tasklane-Signature';
/** The payload URL's example: an address, not words. */
const EXAMPLE_URL = 'https://hooks.example.com/tasklane';

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
  if (project.error) return <Page title={t('webhooks.title')}><ErrorNote error={project.error} /></Page>;
  if (!project.data) return <Loading what={t('webhooks.loadingProject')} />;
  return (
    <Page
      title={t('webhooks.pageTitle', { project: project.data.name })}
      narrow
      actions={
        <nav aria-label={t('webhooks.nav.label')}>
          <a href={`/projects/${projectId}`}>{t('webhooks.nav.board')}</a> <a href={`/projects/${projectId}/members`}>{t('webhooks.nav.members')}</a>
        </nav>
      }
    >
      <p class="muted">
        {t('webhooks.intro.before')}
        <code>{SIGNATURE_HEADER}</code>
        {t('webhooks.intro.after')}
      </p>
      {admin ? <Webhooks projectId={projectId} /> : <p class="muted">{t('webhooks.adminsOnly')}</p>}
    </Page>
  );
}

function Webhooks({ projectId }: { projectId: string }) {
  const webhooks = useQuery(webhookKeys.list(projectId), () => loadWebhooks(projectId));
  // The secret on show: a new webhook's, or the one a rotation just made (the API shows it once).
  const [shown, setShown] = useState<{ webhook: CreatedWebhook; rotated: boolean } | undefined>(undefined);
  const { busy, error, save } = useEditorSave({
    // Shown when a webhook changed elsewhere since the page loaded it: the change was refused (412) and the list reloaded.
    changedElsewhere: t('webhooks.changedElsewhere'),
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
        <h2 id="webhooks-title">{t('webhooks.title')}</h2>
        <ErrorNote error={error ?? webhooks.error} />
        {webhooks.loading && !webhooks.data ? (
          <Loading what={t('webhooks.loadingWebhooks')} />
        ) : list.length === 0 ? (
          <EmptyState title={t('webhooks.empty')} hint={t('webhooks.emptyHint')} />
        ) : (
          <ul class="stack webhook-list">
            {list.map((webhook) => (
              <WebhookItem
                key={webhook.id}
                projectId={projectId}
                webhook={webhook}
                busy={busy}
                onUpdate={(patch, what) => save(what, () => client.webhooks.update({ id: projectId, webhookId: webhook.id, ...patch }, { ifMatch: webhook }))}
                onDelete={() => void save(t('webhooks.deleted'), () => client.webhooks.delete({ id: projectId, webhookId: webhook.id }, { ifMatch: webhook }), true)}
                onRotate={async () => {
                  let rotated: CreatedWebhook | undefined;
                  const done = await save(t('webhooks.secretRotated'), async () => {
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
        {rotated ? t('webhooks.secret.rotated.before') : t('webhooks.secret.new.before')}
        <strong>{webhook.url}</strong>
        {rotated ? t('webhooks.secret.rotated.after') : t('webhooks.secret.new.after')}
      </p>
      <div class="row">
        <label class="grow">
          {t('webhooks.secret.label')}
          <input id={inputId} readOnly value={webhook.secret} onFocus={(e) => e.currentTarget.select()} />
        </label>
        <button type="button" onClick={() => void copy()}>
          {t('webhooks.secret.copy')}
        </button>
      </div>
      {copied && (
        <p class="muted small" role="status">
          {t('webhooks.secret.copied')}
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
    <form class="card stack" onSubmit={submit} aria-label={t('webhooks.add.form')}>
      <label>
        {t('webhooks.payloadUrl')}
        <input type="url" value={url} onInput={(e) => setUrl(e.currentTarget.value)} required maxLength={2000} placeholder={EXAMPLE_URL} />
      </label>
      <EventChoice legend={t('webhooks.events')} chosen={events} onChange={setEvents} />
      <ErrorNote error={error} />
      <button type="submit" class="primary" disabled={busy}>
        {t('webhooks.add.submit')}
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
        <strong>{webhook.active ? t('webhooks.enabled') : t('webhooks.disabled')}</strong>
        {webhook.disabledReason && <span> {t('webhooks.disabledBy', { reason: webhook.disabledReason })}</span>}
        {' · '}
        {/* The event types are the API's names (what the payload says), not words to translate. */}
        {webhook.events.length === 0 ? t('webhooks.everyEvent') : webhook.events.join(', ')}
        {webhook.consecutiveFailures > 0 && <span> · {t('webhooks.failures', { count: webhook.consecutiveFailures })}</span>}
      </p>
      <div class="row">
        <button
          type="button"
          disabled={busy}
          onClick={() => void props.onUpdate({ active: !webhook.active }, webhook.active ? t('webhooks.toggled.disabled') : t('webhooks.toggled.enabled'))}
        >
          {webhook.active ? t('webhooks.disable') : t('webhooks.enable')}
        </button>
        <button type="button" aria-expanded={editing} onClick={() => setEditing(!editing)}>
          {t('common.edit')}
        </button>
        <button type="button" aria-expanded={showDeliveries} onClick={() => setShowDeliveries(!showDeliveries)}>
          {t('webhooks.deliveries')}
        </button>
        <button
          type="button"
          disabled={test.busy}
          onClick={async () => {
            // Sent to a disabled webhook too: how a fixed URL is checked before enabling it again.
            if (!(await test.run(() => client.webhooks.test({ id: props.projectId, webhookId: webhook.id })))) return;
            announce(t('webhooks.testQueued'));
            setShowDeliveries(true);
            void queryClient.invalidateQueries({ queryKey: webhookKeys.deliveries(props.projectId, webhook.id) });
          }}
        >
          {t('webhooks.sendTest')}
        </button>
        <ConfirmButton
          label={t('webhooks.rotate.label')}
          question={t('webhooks.rotate.question', { url: webhook.url })}
          confirmLabel={t('webhooks.rotate.confirm')}
          onConfirm={() => void props.onRotate().then(() => setRotating(false))}
          busy={busy}
          open={rotating}
          setOpen={setRotating}
        />
        <ConfirmButton
          label={t('common.delete')}
          question={t('webhooks.delete.question', { url: webhook.url })}
          confirmLabel={t('webhooks.delete.confirm')}
          onConfirm={props.onDelete}
          busy={busy}
          open={deleting}
          setOpen={setDeleting}
        />
      </div>
      <ErrorNote error={test.error} />
      {editing && <EditWebhook webhook={webhook} busy={busy} onSave={async (patch) => (await props.onUpdate(patch, t('webhooks.saved'))) && setEditing(false)} />}
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
      aria-label={t('webhooks.edit.form', { url: webhook.url })}
      onSubmit={(event) => {
        event.preventDefault();
        onSave({ url: url.trim(), events });
      }}
    >
      <label>
        {t('webhooks.payloadUrl')}
        <input type="url" value={url} onInput={(e) => setUrl(e.currentTarget.value)} required maxLength={2000} />
      </label>
      <EventChoice legend={t('webhooks.events')} chosen={events} onChange={setEvents} />
      <button type="submit" class="primary" disabled={busy}>
        {t('webhooks.edit.submit')}
      </button>
    </form>
  );
}

/** A delivery's state in the language now. */
const deliveryStateLabel = (state: Delivery['state']) => t(`webhooks.deliveryState.${state}`);

/** The webhook's delivery log, newest first (the server keeps a week of it). */
function Deliveries({ projectId, webhook }: { projectId: string; webhook: Webhook }) {
  const deliveries = useQuery(webhookKeys.deliveries(projectId, webhook.id), () =>
    client.webhooks.deliveries({ id: projectId, webhookId: webhook.id, limit: 50 }).then((page) => page.items),
  );
  return (
    <div class="stack">
      <div class="row">
        <h4 class="grow">{t('webhooks.recentDeliveries')}</h4>
        <button type="button" disabled={deliveries.loading} onClick={() => deliveries.reload()}>
          {t('webhooks.refreshDeliveries')}
        </button>
      </div>
      <ErrorNote error={deliveries.error} />
      {deliveries.loading && !deliveries.data ? (
        <Loading what={t('webhooks.loadingDeliveries')} />
      ) : deliveries.data?.length === 0 ? (
        <p class="muted">{t('webhooks.noDeliveries')}</p>
      ) : (
        <table class="members">
          <caption class="visually-hidden">{t('webhooks.deliveriesCaption', { url: webhook.url })}</caption>
          <thead>
            <tr>
              <th scope="col">{t('webhooks.column.event')}</th>
              <th scope="col">{t('webhooks.column.state')}</th>
              <th scope="col">{t('webhooks.column.attempts')}</th>
              <th scope="col">{t('webhooks.column.lastStatus')}</th>
              <th scope="col">{t('webhooks.column.error')}</th>
              <th scope="col">{t('webhooks.column.created')}</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.data?.map((delivery) => (
              <tr key={delivery.id} data-delivery-id={delivery.id}>
                <td>{delivery.eventType}</td>
                <td>{deliveryStateLabel(delivery.state)}</td>
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
