import type { Db } from '@tasklane/db';
import { EXPORT_FILE_FORMAT, EXPORT_FILE_VERSION, type ExportFormat, type Field, MAX_PAGE_SIZE, type Member, type Task } from '@tasklane/schemas';
import { stringify } from 'csv-stringify/sync';
import type { Page } from '../../platform/paging';
import type { AccessTokensService } from '../access-tokens/service';
import type { AuthService } from '../auth/service';
import type { FieldsService } from '../fields/service';
import type { LabelsService } from '../labels/service';
import type { MembersService } from '../members/service';
import type { NotificationSettingsService } from '../notification-email/service';
import { requireProjectAccess } from '../policy/access';
import { authorize } from '../policy/policy';
import type { ProjectsService } from '../projects/service';
import type { StatesService } from '../states/service';
import type { TasksService } from '../tasks/service';
import * as store from './store';

/** A file to download: its name, its type, and its text in pieces, made as they are read. */
export interface ExportFile {
  filename: string;
  contentType: string;
  chunks: AsyncIterable<string>;
}

export interface ExportDependencies {
  auth: AuthService;
  accessTokens: AccessTokensService;
  notificationSettings: NotificationSettingsService;
  projects: ProjectsService;
  members: MembersService;
  states: StatesService;
  labels: LabelsService;
  fields: FieldsService;
  tasks: TasksService;
}

/** Every item of a paged list, a page (at most MAX_PAGE_SIZE) at a time. */
async function* pagesOf<T>(list: (query: { limit: number; cursor?: string }) => Promise<Page<T>>): AsyncGenerator<T[]> {
  let cursor: string | null = null;
  do {
    const page: Page<T> = await list({ limit: MAX_PAGE_SIZE, ...(cursor ? { cursor } : {}) });
    if (page.items.length > 0) yield page.items;
    cursor = page.nextCursor;
  } while (cursor);
}

async function allOf<T>(list: (query: { limit: number; cursor?: string }) => Promise<Page<T>>): Promise<T[]> {
  const items: T[] = [];
  for await (const page of pagesOf(list)) items.push(...page);
  return items;
}

/** Rows of a page keyed by their task, in the rows' order. */
function byTask<Row extends { taskId: string }>(rows: Row[]): Map<string, Omit<Row, 'taskId'>[]> {
  const grouped = new Map<string, Omit<Row, 'taskId'>[]>();
  for (const { taskId, ...rest } of rows) {
    const list = grouped.get(taskId) ?? [];
    list.push(rest);
    grouped.set(taskId, list);
  }
  return grouped;
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** A task's custom field value as a spreadsheet shows it: option names, a member's email, the value itself. */
function fieldCell(field: Field, value: unknown, emailOf: Map<string, string>): string {
  if (value === undefined || value === null) return '';
  const optionName = (id: unknown) => field.options.find((option) => option.id === id)?.name ?? String(id);
  switch (field.type) {
    case 'select':
      return optionName(value);
    case 'multi_select':
      return (value as unknown[]).map(optionName).join(', ');
    case 'user':
      return emailOf.get(String(value)) ?? String(value);
    default:
      return String(value);
  }
}

/**
 * The exports of issue 38: a whole project (JSON, or its tasks as CSV) for its ADMINs and owner,
 * and a user's own data (JSON). Each is checked before the first byte (so a refusal is still a
 * status and an error body) and then made a page at a time as the reply is read: a project of any
 * size is never held whole in memory, and its tasks are read in keyset pages (never OFFSET), so
 * none is lost or repeated between pages — a task's creation time and id, the order, never change.
 */
export function createExportService(db: Db, services: ExportDependencies) {
  const { projects, members, states, labels, fields, tasks } = services;

  async function* taskPages(userId: string, projectId: string): AsyncGenerator<Task[]> {
    yield* pagesOf((page) => tasks.listForProject(userId, { projectId, sort: 'createdAt', ...page }));
  }

  async function* projectJson(userId: string, projectId: string): AsyncGenerator<string> {
    const project = await projects.get(userId, projectId);
    // The header first: an importer knows the file from its first bytes.
    yield `{"format":${JSON.stringify(EXPORT_FILE_FORMAT)},"version":${EXPORT_FILE_VERSION},"kind":"project","exportedAt":${JSON.stringify(new Date().toISOString())}`;
    yield `,"project":${JSON.stringify(project)}`;
    yield `,"states":${JSON.stringify(await states.list(userId, { id: projectId }))}`;
    yield `,"labels":${JSON.stringify(await allOf((page) => labels.list(userId, { id: projectId, ...page })))}`;
    yield `,"fields":${JSON.stringify(await fields.list(userId, { id: projectId }))}`;
    yield `,"members":${JSON.stringify(await allOf((page) => members.list(userId, { id: projectId, ...page })))}`;
    yield ',"tasks":[';
    let first = true;
    for await (const page of taskPages(userId, projectId)) {
      const ids = page.map((task) => task.id);
      const [comments, relations, timeEntries, attachments] = await Promise.all([
        store.commentsOfTasks(db, ids),
        store.relationsFromTasks(db, ids),
        store.timeEntriesOfTasks(db, ids),
        store.attachmentsOfTasks(db, ids),
      ]);
      const commentsOf = byTask(comments.map((row) => ({ ...row, createdAt: iso(row.createdAt), updatedAt: iso(row.updatedAt) })));
      const relationsOf = byTask(relations.map(({ taskId, ...row }) => ({ taskId, ...row, createdAt: iso(row.createdAt) })));
      const timeOf = byTask(timeEntries.map((row) => ({ ...row, createdAt: iso(row.createdAt), updatedAt: iso(row.updatedAt) })));
      const attachmentsOf = byTask(attachments.map((row) => ({ ...row, createdAt: iso(row.createdAt) })));
      const text = page
        .map((task) =>
          JSON.stringify({
            ...task,
            comments: commentsOf.get(task.id) ?? [],
            relations: relationsOf.get(task.id) ?? [],
            timeEntries: timeOf.get(task.id) ?? [],
            attachments: attachmentsOf.get(task.id) ?? [],
          }),
        )
        .join(',');
      yield first ? text : `,${text}`;
      first = false;
    }
    yield ']}\n';
  }

  async function* projectCsv(userId: string, projectId: string): AsyncGenerator<string> {
    const [stateList, labelList, fieldList, memberList] = await Promise.all([
      states.list(userId, { id: projectId }),
      allOf((page) => labels.list(userId, { id: projectId, ...page })),
      fields.list(userId, { id: projectId }),
      allOf((page) => members.list(userId, { id: projectId, ...page })),
    ]);
    const stateName = new Map(stateList.map((state) => [state.key, state.name]));
    const labelName = new Map(labelList.map((label) => [label.id, label.name]));
    const emailOf = new Map(memberList.map((member: Member) => [member.userId, member.email]));
    // RFC 4180 (CRLF, quotes doubled, a cell quoted when it holds a comma, quote or line break), and
    // a cell starting with = + - @, a tab or a carriage return prefixed with ' (OWASP's advice on CSV
    // injection), the header's field names included, so a spreadsheet never runs one as a formula.
    // Every cell is text, so a negative number (a custom field's) is prefixed too, as OWASP advises.
    const csv = (rows: string[][]) => stringify(rows, { record_delimiter: 'windows', escape_formulas: true });
    yield csv([['key', 'title', 'description', 'status', 'priority', 'start', 'due', 'assignee', 'labels', 'created', 'updated', ...fieldList.map((field) => field.name)]]);
    for await (const page of taskPages(userId, projectId)) {
      yield csv(
        page.map((task) => [
          task.key,
          task.title,
          task.description,
          stateName.get(task.status) ?? task.status,
          task.priority,
          task.startDate ?? '',
          task.dueDate ?? '',
          task.assigneeId ? (emailOf.get(task.assigneeId) ?? '') : '',
          task.labelIds.map((id) => labelName.get(id) ?? id).join(', '),
          task.createdAt,
          task.updatedAt,
          ...fieldList.map((field) => fieldCell(field, task.fields[field.id], emailOf)),
        ]),
      );
    }
  }

  /** `,"name":[…]` of rows read in id order, a page after the last one's id at a time. */
  async function* keysetArray<Row extends { id: string }>(name: string, read: (afterId: string | undefined) => Promise<Row[]>, toJson: (row: Row) => unknown): AsyncGenerator<string> {
    yield `,${JSON.stringify(name)}:[`;
    let after: string | undefined;
    for (;;) {
      const rows = await read(after);
      if (rows.length === 0) break;
      const text = rows.map((row) => JSON.stringify(toJson(row))).join(',');
      yield after === undefined ? text : `,${text}`;
      after = rows[rows.length - 1]!.id;
      if (rows.length < MAX_PAGE_SIZE) break;
    }
    yield ']';
  }

  async function* accountJson(userId: string): AsyncGenerator<string> {
    const [account, notificationSettings, accessTokens, memberships] = await Promise.all([
      services.auth.me(userId),
      services.notificationSettings.get(userId),
      allOf((page) => services.accessTokens.list(userId, page)),
      allOf((page) => projects.list(userId, page)),
    ]);
    yield `{"format":${JSON.stringify(EXPORT_FILE_FORMAT)},"version":${EXPORT_FILE_VERSION},"kind":"account","exportedAt":${JSON.stringify(new Date().toISOString())}`;
    yield `,"account":${JSON.stringify(account)}`;
    yield `,"notificationSettings":${JSON.stringify(notificationSettings)}`;
    // Their metadata only: a token's secret is never stored, only its digest, which stays out too.
    yield `,"accessTokens":${JSON.stringify(accessTokens)}`;
    yield `,"memberships":${JSON.stringify(memberships.map((project) => ({ projectId: project.id, projectName: project.name, projectKey: project.key, role: project.role, owner: project.ownerId === userId })))}`;
    // What they wrote, in any project, a member there still or not: it is their data.
    yield* keysetArray('comments', (after) => store.commentsByAuthor(db, userId, after, MAX_PAGE_SIZE), ({ projectKey, taskNumber, ...row }) => ({
      ...row,
      taskKey: `${projectKey}-${taskNumber}`,
      createdAt: iso(row.createdAt),
      updatedAt: iso(row.updatedAt),
    }));
    yield* keysetArray('timeEntries', (after) => store.timeEntriesOfUser(db, userId, after, MAX_PAGE_SIZE), ({ projectKey: _key, ...row }) => ({
      ...row,
      createdAt: iso(row.createdAt),
      updatedAt: iso(row.updatedAt),
    }));
    yield '}\n';
  }

  return {
    /**
     * The project as `format` asks: access checked first (404 for a non-member, 403 below ADMIN),
     * then the file made as it is read. Named by the project's key.
     */
    async project(userId: string, projectId: string, format: ExportFormat): Promise<ExportFile> {
      const access = await requireProjectAccess(db, projectId, userId);
      authorize(access, 'project.export');
      const { key } = await projects.get(userId, projectId);
      return format === 'csv'
        ? { filename: `${key}.csv`, contentType: 'text/csv; charset=utf-8', chunks: projectCsv(userId, projectId) }
        : { filename: `${key}.json`, contentType: 'application/json; charset=utf-8', chunks: projectJson(userId, projectId) };
    },

    /** The caller's own data, for a data-protection request. */
    async account(userId: string): Promise<ExportFile> {
      await services.auth.me(userId);
      return { filename: `tasklane-account-${new Date().toISOString().slice(0, 10)}.json`, contentType: 'application/json; charset=utf-8', chunks: accountJson(userId) };
    },
  };
}

export type ExportService = ReturnType<typeof createExportService>;
