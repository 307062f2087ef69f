// The targets (ratios to the floors measured in the same run, turn about) and the table printed
// after a run (also written as Markdown for the docs).

export const LABELS = {
  hello: 'baseline: Fastify hello (machine speed)',
  task: 'GET /tasks/{id}',
  project: 'GET /projects/{id}',
  page: 'first page of 50 tasks',
  filtered: 'filtered page (IN_PROGRESS, assignee me)',
  labelled: 'page by label (either of two)',
  trpc: 'GET task via SDK tRPC transport',
  create: 'POST /tasks',
  patch: 'PATCH /tasks/{id} status',
  title: 'PATCH /tasks/{id} title',
  comment: 'POST /tasks/{id}/comments',
  hot: 'PATCH the hot task (all connections, one task)',
  mix: '80/20 mix',
  login: 'POST /auth/login (bcrypt cost 10, 4 connections)',
  flood: 'GET /tasks/{id} during a login flood',
};

/** The scenarios measured against their bare floor (floors.mjs), on PostgreSQL. */
export const FLOOR_SCENARIOS = ['task', 'project', 'page', 'filtered', 'trpc', 'create', 'patch', 'title', 'comment', 'hot', 'mix'];

/**
 * PostgreSQL targets, one server process, as shares of the bare floor's requests per second (the
 * bare read, page or single-row write; on the hot task the bare UPDATE of that one row).
 */
export const POSTGRES_TARGETS = {
  task: { bare: 1 },
  project: { bare: 1 },
  trpc: { bare: 1 },
  page: { bare: 1 },
  filtered: { bare: 1 },
  create: { bare: 0.75 },
  patch: { bare: 0.75 },
  title: { bare: 0.75 },
  comment: { bare: 0.75 },
  hot: { bare: 0.75 },
};

/** Each row's target verdict: a list of the targets missed, empty when all are met; null when it has none. */
export function verdicts(db, rows, baselines, rssMb) {
  const byName = Object.fromEntries(rows.map((row) => [row.scenario, row]));
  const checks = {};
  for (const row of rows) {
    const missed = [];
    if (row.errors > 0) missed.push(`${row.errors} errors`);
    if (row.floors?.bare.errors) missed.push(`floor errors ${row.floors.bare.errors}`);
    if (row.requests === 0) missed.push('no response completed within the run');
    if (row.scenario === 'flood' && row.floodLogins?.rps === 0) missed.push('no login completed beside it');
    if (db === 'postgres') {
      const target = POSTGRES_TARGETS[row.scenario];
      if (target?.bare && row.floors && row.rps / row.floors.bare.rps < target.bare) missed.push(`< ${target.bare * 100} % of bare floor`);
      if (row.scenario === 'flood' && byName.task && row.p99 > 2 * byName.task.p99) missed.push('p99 > 2× read p99');
    } else if ((row.scenario === 'task' || row.scenario === 'project') && row.p99 > 100) {
      missed.push('p99 > 100 ms');
    }
    const hasTarget = row.errors > 0 || missed.length > 0 || (db === 'postgres' ? (POSTGRES_TARGETS[row.scenario] && row.floors) || row.scenario === 'flood' : ['task', 'project'].includes(row.scenario));
    checks[row.scenario] = hasTarget ? missed : null;
  }
  const rss = db === 'postgres' && rssMb > 300 ? ['RSS > 300 MB'] : [];
  return { checks, rss };
}

const percent = (value) => (value === undefined ? '–' : `${(value * 100).toFixed(1)} %`);
const cpu = (row) => (row.cpuUsPerRequest === undefined ? '–' : number(row.cpuUsPerRequest));
const databaseCpu = (row, db) => (db !== 'postgres' || row.databaseCpuUsPerRequest === undefined ? '–' : number(row.databaseCpuUsPerRequest));
const busy = (row) => (row.machineBusy === undefined ? '–' : `${Math.round(row.machineBusy * 100)} %`);
const number = (value) => Math.round(value).toLocaleString('en-US');

/** The table as Markdown rows (printed as is: it reads well in a terminal too). */
export function table({ db, rows, baselines, rssMb, connections, note }) {
  const { checks, rss } = verdicts(db, rows, baselines, rssMb);
  const hasFloors = rows.some((row) => row.floors);
  const lines = [`### ${db === 'postgres' ? 'PostgreSQL' : 'PGlite'} — ${connections} connections${note ? ` (${note})` : ''}`, ''];
  if (hasFloors) {
    lines.push(
      'Each scenario against its floor, measured turn about: **bare** (bare Fastify + jose + postgres.js doing a read by id, a plain SELECT of 50 rows + JSON.stringify, or a single-row INSERT/UPDATE, autocommit; on the hot task the one UPDATE of that row). CPU: µs per request of the server process and of PostgreSQL, service / bare.',
      '',
      '| scenario | req/s | p50 ms | p99 ms | bare req/s | p50 | p99 | × bare | p99 × bare | server CPU µs/req | PostgreSQL CPU µs/req | errors | target |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---|',
    );
  } else {
    lines.push('| scenario | req/s | p50 ms | p99 ms | errors | server CPU µs/req | machine busy | target |', '|---|---:|---:|---:|---:|---:|---:|---|');
  }
  for (const [name, result] of Object.entries(baselines.results)) {
    lines.push(
      hasFloors
        ? `| ${LABELS[name] ?? name} | ${number(result.rps)} | ${result.p50} | ${result.p99} | | | | | | ${cpu(result)} | | ${result.errors} | |`
        : `| ${LABELS[name] ?? name} | ${number(result.rps)} | ${result.p50} | ${result.p99} | ${result.errors} | ${cpu(result)} | ${busy(result)} | |`,
    );
  }
  for (const row of rows) {
    const check = checks[row.scenario];
    const verdict = check === null ? '' : check.length === 0 ? 'met' : `**missed**: ${check.join(', ')}`;
    const label = row.label ?? LABELS[row.scenario];
    if (!hasFloors) {
      lines.push(`| ${label} | ${number(row.rps)} | ${row.p50} | ${row.p99} | ${row.errors} | ${cpu(row)} | ${busy(row)} | ${verdict} |`);
    } else if (row.floors) {
      const { bare } = row.floors;
      const ratio = (a, b) => (b ? `${(a / b).toFixed(2)}` : '–');
      lines.push(
        `| ${label} | ${number(row.rps)} | ${row.p50} | ${row.p99} | ${number(bare.rps)} | ${bare.p50} | ${bare.p99} | ${percent(row.rps / bare.rps)} | ${ratio(row.p99, bare.p99)} | ${cpu(row)} / ${cpu(bare)} | ${databaseCpu(row, db)} / ${databaseCpu(bare, db)} | ${row.errors} | ${verdict} |`,
      );
    } else {
      lines.push(`| ${label} | ${number(row.rps)} | ${row.p50} | ${row.p99} | | | | | | ${cpu(row)} | ${databaseCpu(row, db)} | ${row.errors} | ${verdict} |`);
    }
  }
  lines.push('', `Server resident memory after the run: ${rssMb.toFixed(0)} MB${rss.length ? ` — **missed**: ${rss[0]}` : db === 'postgres' ? ' (target ≤ 300 MB: met)' : ''}.`);
  return lines.join('\n');
}

/** The mix on one server process and on several, against one PostgreSQL. */
export function instancesTable(rows) {
  const one = rows.find((row) => row.instances === 1);
  const lines = [
    'The 80/20 mix on one PostgreSQL, served by one server process and by several separate ones (the same connections, split over as many load generators in both cases; medians of the turns):',
    '',
    '| server processes | req/s | × one process | p99 ms | server CPU µs/req (all processes) | PostgreSQL CPU µs/req | resident memory MB (all) | errors |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const row of rows) {
    lines.push(
      `| ${row.instances} | ${number(row.rps)} | ${percent(row.rps / one.rps)} | ${row.p99} | ${number(row.cpuUsPerRequest)} | ${number(row.databaseCpuUsPerRequest)} | ${row.rssMb.toFixed(0)} | ${row.errors} |`,
    );
  }
  return lines.join('\n');
}

/**
 * The assumed load of 1 000 active users: requests per second per user, on average over a working
 * day, at the day's busiest hour, and in a burst (everyone at once after a stand-up).
 */
export const CAPACITY_LOADS = [
  ['working day, average', 0.05],
  ['busiest hour', 0.2],
  ['burst', 1],
];
/** Cores are sized to run at most this busy, leaving room for spikes, GC and the kernel. */
export const CAPACITY_UTILISATION = 0.6;

/** Cores of Tasklane and of PostgreSQL for 1 000 active users, from the mix's measured CPU per request. */
export function capacityTable(section) {
  const mix = section.rows.find((row) => row.scenario === 'mix');
  if (!mix) return '';
  const users = 1000;
  const cores = (rps, us) => ((rps * us) / 1e6 / CAPACITY_UTILISATION).toFixed(2);
  const lines = [
    `Capacity for ${users.toLocaleString('en-US')} active users, from the mix's CPU per request in this run (server ${number(mix.cpuUsPerRequest)} µs, PostgreSQL ${number(mix.databaseCpuUsPerRequest)} µs; the mix is 80 % reads — task, project, page, filtered page — and 20 % writes — create, status, title, comment), cores at most ${CAPACITY_UTILISATION * 100} % busy:`,
    '',
    '| load | requests/s per user | requests/s | Tasklane cores | PostgreSQL cores |',
    '|---|---:|---:|---:|---:|',
  ];
  for (const [name, perUser] of CAPACITY_LOADS) {
    const rps = users * perUser;
    lines.push(`| ${name} | ${perUser} | ${number(rps)} | ${cores(rps, mix.cpuUsPerRequest)} | ${cores(rps, mix.databaseCpuUsPerRequest)} |`);
  }
  return lines.join('\n');
}

/**
 * `--replicas N`: the read page and the mix on one primary alone, on the same primary with N
 * streaming replicas (and through PgBouncer), each part's CPU per request: what the primary is spared sizes the topology.
 */
export function replicasTable(rows) {
  const lines = [
    'Read replicas: one server process on a primary of the bench\'s own, alone or reading from streaming replicas (DATABASE_REPLICA_URLS); all on this machine\'s cores, so the CPU per request, not req/s, is the measure (medians of the turns):',
    '',
    '| scenario | replicas | pooler | req/s | p99 ms | server CPU µs/req | primary CPU µs/req | replicas\' CPU µs/req (all) | PgBouncer CPU µs/req | statements on replicas | errors |',
    '|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const row of rows) {
    lines.push(
      `| ${LABELS[row.scenario] ?? row.scenario} | ${row.replicas} | ${row.pooler ?? '–'} | ${number(row.rps)} | ${row.p99} | ${number(row.cpuUsPerRequest)} | ${number(row.primaryCpuUsPerRequest)} | ${number(row.replicaCpuUsPerRequest)} | ${row.pooler ? number(row.bouncerCpuUsPerRequest) : '–'} | ${percent(row.replicaShare)} | ${row.errors} |`,
    );
  }
  return lines.join('\n');
}
