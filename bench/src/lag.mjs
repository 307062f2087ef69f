// The derived-work lag: how long after a write its derived work reaches its consumers, measured
// while another load (the 80/20 mix) runs. A probe writer comments on the hot project's probe tasks,
// one comment every `intervalMs`, each mentioning the reader; for each comment the bench records when
//   (a) its `comment.created` event arrives on the reader's stream of the project
//       (GET /api/v1/projects/{id}/events),
//   (b) the reader's `comment.mentioned` notification arrives on the reader's notification stream
//       (GET /api/v1/notifications/events),
//   (c) its webhook delivery reaches a receiver in this process (a webhook of the project on
//       http://127.0.0.1:<port>; the server must run with WEBHOOK_ALLOW_PRIVATE=true).
// Each lag is given from two instants that bracket the commit: the write's response (after the
// commit: a lower bound of the lag from the commit; with a write path that answers only once its
// events are processed it can be negative) and the event's `time` (activity.created_at, set in the
// transaction, so before the commit: an upper bound). All clocks are this machine's.
/* global AbortController */
import { createServer } from 'node:http';
import { TextDecoder } from 'node:util';
import { performance } from 'node:perf_hooks';
import { lagFixtures, logIn } from './seed.mjs';

const now = () => performance.timeOrigin + performance.now();

/** Reads a Server-Sent Events stream, calling `onEvent({ event, data, at })` per event; resolves once `: connected` came. */
async function follow(url, token, signal, onEvent) {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal });
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let connected;
  const ready = new Promise((resolve) => {
    connected = resolve;
  });
  (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        const at = now();
        buffer += decoder.decode(value, { stream: true });
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (frame.startsWith(': connected')) connected();
          const event = /^event: (.*)$/m.exec(frame)?.[1];
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (event && data) onEvent({ event, data: JSON.parse(data), at });
        }
      }
    } catch (error) {
      if (!signal.aborted) console.error(`[lag] stream ${url} ended: ${error.message}`);
    }
  })();
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${url}: no ': connected' within 10 s`)), 10_000);
  });
  return Promise.race([ready, late]).finally(() => clearTimeout(timer));
}

const percentile = (values, p) => {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

/** p50, p99 and max of a list of lags in ms (rounded to 0.1 ms). */
const summary = (values) => {
  const round = (value) => (value === undefined ? undefined : Math.round(value * 10) / 10);
  return { n: values.length, p50: round(percentile(values, 50)), p99: round(percentile(values, 99)), max: round(percentile(values, 100)) };
};

async function api(url, token, method, path, body) {
  const response = await fetch(`${url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/**
 * Probes the server at `url` for `duration` seconds (then waits up to `settleMs` for what is still
 * on its way). Resolves with the lags of each channel and the probes whose work never arrived.
 */
export async function measureLag({ url, duration, intervalMs = 100, settleMs = 5000 }) {
  const lag = lagFixtures();
  const [owner, writer, reader] = await logIn(url, [{ ...lag.owner }, { ...lag.writer }, { ...lag.reader }]);
  const probes = new Map();
  const probe = (id) => {
    if (!probes.has(id)) probes.set(id, {});
    return probes.get(id);
  };

  // The webhook receiver: every delivery answered 204 at once.
  const receiver = createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const at = now();
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        if (body.type === 'comment.created') Object.assign(probe(body.resource.id), { hookAt: at, eventTime: Date.parse(body.time) });
      } catch {
        // not ours
      }
      response.writeHead(204).end();
    });
  });
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hookUrl = `http://127.0.0.1:${receiver.address().port}/hook`;

  // A database kept from an earlier run may still hold the probe project's webhook of that run.
  for (const old of (await api(url, owner.token, 'GET', `/projects/${lag.projectId}/webhooks?limit=100`)) ?? []) {
    await api(url, owner.token, 'DELETE', `/projects/${lag.projectId}/webhooks/${old.id}`);
  }
  const webhook = await api(url, owner.token, 'POST', `/projects/${lag.projectId}/webhooks`, { url: hookUrl, events: ['comment.created'], active: true });
  const streams = new AbortController();
  try {
    await Promise.all([
      follow(`${url}/api/v1/projects/${lag.projectId}/events`, reader.token, streams.signal, ({ event, data, at }) => {
        if (event === 'comment.created') Object.assign(probe(data.resource.id), { liveAt: at, eventTime: Date.parse(data.time) });
      }),
      follow(`${url}/api/v1/notifications/events`, reader.token, streams.signal, ({ data, at }) => {
        if (data.commentId) probe(data.commentId).notificationAt = at;
      }),
    ]);

    const sent = [];
    const end = now() + duration * 1000;
    for (let n = 0; now() < end; n++) {
      const startedAt = now();
      const comment = await api(url, writer.token, 'POST', `/tasks/${lag.probeTaskIds[n % lag.probeTaskIds.length]}/comments`, {
        text: `Lag probe ${n} for @reader`,
        mentionIds: [reader.userId],
      });
      Object.assign(probe(comment.id), { startedAt, respondedAt: now() });
      sent.push(comment.id);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, intervalMs - (now() - startedAt))));
    }
    const complete = () => sent.every((id) => ['liveAt', 'notificationAt', 'hookAt'].every((key) => probes.get(id)[key] !== undefined));
    const settleEnd = now() + settleMs;
    while (!complete() && now() < settleEnd) await new Promise((resolve) => setTimeout(resolve, 50));

    const channels = { live: 'liveAt', notification: 'notificationAt', webhook: 'hookAt' };
    const raw = { probes: sent.length, writeMs: sent.map((id) => probes.get(id).respondedAt - probes.get(id).startedAt) };
    for (const [name, key] of Object.entries(channels)) {
      const arrived = sent.map((id) => probes.get(id)).filter((entry) => entry[key] !== undefined);
      raw[name] = {
        fromResponse: arrived.map((entry) => entry[key] - entry.respondedAt),
        fromEventTime: arrived.filter((entry) => entry.eventTime !== undefined).map((entry) => entry[key] - entry.eventTime),
        missing: sent.length - arrived.length,
      };
    }
    return summarizeLag([raw]);
  } finally {
    streams.abort();
    await api(url, owner.token, 'DELETE', `/projects/${lag.projectId}/webhooks/${webhook.id}`).catch(() => {});
    await new Promise((resolve) => receiver.close(resolve));
    receiver.closeAllConnections?.();
  }
}

/** Several probe runs' raw lags (measureLag's `raw`) as one: p50 / p99 / max of each, the misses summed. */
export function summarizeLag(raws) {
  const all = (pick) => raws.flatMap(pick);
  const result = { probes: raws.reduce((sum, raw) => sum + raw.probes, 0), writeMs: summary(all((raw) => raw.writeMs)), raw: raws.length === 1 ? raws[0] : undefined };
  for (const name of ['live', 'notification', 'webhook']) {
    result[name] = {
      fromResponse: summary(all((raw) => raw[name].fromResponse)),
      fromEventTime: summary(all((raw) => raw[name].fromEventTime)),
      missing: raws.reduce((sum, raw) => sum + raw[name].missing, 0),
    };
  }
  return result;
}

/** The lag rows as Markdown. */
export function lagTable(rows) {
  const cell = (s) => (s.n === 0 ? '–' : `${s.p50} / ${s.p99}`);
  const lines = [
    'Derived-work lag under the 80/20 mix, ms, p50 / p99: from the write\'s response (after its commit; a lower bound) and from the event\'s `time` (activity.created_at, in the transaction; an upper bound) to the arrival at the consumer.',
    '',
    '| server | probes | write p50 / p99 | live event: from response | from event time | notification: from response | from event time | webhook: from response | from event time | missing (live / notification / webhook) |',
    '|---|---:|---|---|---|---|---|---|---|---|',
  ];
  for (const row of rows) {
    lines.push(
      `| ${row.name} | ${row.probes} | ${cell(row.writeMs)} | ${cell(row.live.fromResponse)} | ${cell(row.live.fromEventTime)} | ${cell(row.notification.fromResponse)} | ${cell(row.notification.fromEventTime)} | ${cell(row.webhook.fromResponse)} | ${cell(row.webhook.fromEventTime)} | ${row.live.missing} / ${row.notification.missing} / ${row.webhook.missing} |`,
    );
  }
  return lines.join('\n');
}
