// Targets of issue 5 and the table printed after a run (also written as Markdown for the docs).

export const LABELS = {
  hello: 'baseline: Fastify hello',
  floor: 'baseline: floor (jose + postgres.js by id)',
  task: 'GET /tasks/{id}',
  project: 'GET /projects/{id}',
  page: 'first page of 50 tasks',
  filtered: 'filtered page (IN_PROGRESS, assignee me)',
  trpc: 'GET task via SDK tRPC transport',
  create: 'POST /tasks',
  patch: 'PATCH /tasks/{id} status',
  comment: 'POST /tasks/{id}/comments',
  mix: '80/20 mix',
  login: 'POST /auth/login (bcrypt cost 10, 4 connections)',
  flood: 'GET /tasks/{id} during a login flood',
};

/** PostgreSQL targets, as ratios to the same-run baselines. */
export const POSTGRES_TARGETS = {
  task: { floor: 0.6, hello: 0.15, p99: 20 },
  project: { floor: 0.6, hello: 0.15, p99: 20 },
  page: { hello: 0.08 },
  filtered: { hello: 0.08 },
  create: { hello: 0.06 },
  patch: { hello: 0.06 },
  comment: { hello: 0.06 },
  mix: { hello: 0.1 },
};

/** Each row's target verdict: a list of the targets missed, empty when all are met; null when it has none. */
export function verdicts(db, rows, baselines, rssMb) {
  const byName = Object.fromEntries(rows.map((row) => [row.scenario, row]));
  const checks = {};
  for (const row of rows) {
    const missed = [];
    if (row.errors > 0) missed.push(`${row.errors} errors`);
    if (row.requests === 0) missed.push('no response completed within the run');
    if (row.scenario === 'flood' && row.floodLogins?.rps === 0) missed.push('no login completed beside it');
    if (db === 'postgres') {
      const target = POSTGRES_TARGETS[row.scenario];
      if (target?.floor && baselines.floor && row.rps / baselines.floor < target.floor) missed.push(`< ${target.floor * 100} % of floor`);
      if (target?.hello && row.rps / baselines.hello < target.hello) missed.push(`< ${target.hello * 100} % of hello`);
      if (target?.p99 && row.p99 > target.p99) missed.push(`p99 > ${target.p99} ms`);
      if (row.scenario === 'flood' && byName.task && row.p99 > 2 * byName.task.p99) missed.push('p99 > 2× read p99');
    } else if ((row.scenario === 'task' || row.scenario === 'project') && row.p99 > 100) {
      missed.push('p99 > 100 ms');
    }
    const hasTarget = row.errors > 0 || missed.length > 0 || (db === 'postgres' ? POSTGRES_TARGETS[row.scenario] || row.scenario === 'flood' : ['task', 'project'].includes(row.scenario));
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
  const lines = [
    `### ${db === 'postgres' ? 'PostgreSQL' : 'PGlite'} — ${connections} connections${note ? ` (${note})` : ''}`,
    '',
    '| scenario | req/s | p50 ms | p99 ms | errors | server CPU µs/req | PostgreSQL CPU µs/req | machine busy | × hello | × floor | target |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const [name, result] of Object.entries(baselines.results)) {
    lines.push(`| ${LABELS[name] ?? name} | ${number(result.rps)} | ${result.p50} | ${result.p99} | ${result.errors} | ${cpu(result)} | ${databaseCpu(result, db)} | ${busy(result)} | | | |`);
  }
  for (const row of rows) {
    const check = checks[row.scenario];
    const verdict = check === null ? '' : check.length === 0 ? 'met' : `**missed**: ${check.join(', ')}`;
    lines.push(
      `| ${row.label ?? LABELS[row.scenario]} | ${number(row.rps)} | ${row.p50} | ${row.p99} | ${row.errors} | ${cpu(row)} | ${databaseCpu(row, db)} | ${busy(row)} | ${percent(row.rps / baselines.hello)} | ${baselines.floor ? percent(row.rps / baselines.floor) : '–'} | ${verdict} |`,
    );
  }
  lines.push('', `Server resident memory after the run: ${rssMb.toFixed(0)} MB${rss.length ? ` — **missed**: ${rss[0]}` : db === 'postgres' ? ' (target ≤ 300 MB: met)' : ''}.`);
  return lines.join('\n');
}
