import { z } from 'zod';
import { IdSchema, PathIdSchema, TimestampSchema } from './common';
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from './text';
import { StateCategorySchema } from './states';

/**
 * Imports (issue 38): a file another tool exported becomes one new project. The upload is a plain
 * multipart route (`POST /imports`); these are its query, the mapping of a plain CSV, and the shapes
 * of what it answers.
 */
export const IMPORT_SOURCES = ['trello', 'jira', 'github', 'asana', 'csv', 'tasklane'] as const;
export type ImportSource = (typeof IMPORT_SOURCES)[number];
export const ImportSourceSchema = z.enum(IMPORT_SOURCES, { error: `source must be one of ${IMPORT_SOURCES.join(', ')}` }).meta({ id: 'ImportSource' });

export const IMPORT_STATUSES = ['pending', 'running', 'succeeded', 'failed'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];

/** The most labels an import makes: more is refused (a board of thousands of labels is no taxonomy). */
export const IMPORT_LABELS_MAX = 500;
/** The most distinct emails a file may name (matched with registered users): a bound on what one request learns. */
export const IMPORT_PEOPLE_MAX = 500;
/** The most tasks one import makes. */
export const IMPORT_TASKS_MAX = 100_000;
/** The most warnings an import keeps: the rest are counted in the last one. */
export const IMPORT_WARNINGS_MAX = 100;

/** The query of `POST /imports`: `dryRun=true` answers what would be made, at once, and writes nothing. */
export const ImportQuerySchema = z
  .object({ dryRun: z.enum(['true', 'false'], { error: 'dryRun must be true or false' }).optional() })
  .strict();

/** A plain CSV's columns: each names the header of the column that holds it; only `title` is required. */
const column = (max: number) => z.string().min(1).max(max).refine(isStorableText, { error: UNSTORABLE_TEXT_MESSAGE });
export const CsvMappingSchema = z
  .object({
    title: column(200),
    description: column(200).optional(),
    status: column(200).optional(),
    priority: column(200).optional(),
    dueDate: column(200).optional(),
    assigneeEmail: column(200).optional(),
    labels: column(200).optional(),
    /** Custom fields: the field's name (a text field is made) → the column holding its value. */
    fields: z.record(column(50), column(200)).optional(),
  })
  .strict()
  .meta({ id: 'CsvMapping', example: { title: 'Name', status: 'State', labels: 'Tags' } });
export type CsvMapping = z.infer<typeof CsvMappingSchema>;

export const ImportCountsSchema = z
  .object({
    states: z.number().int(),
    labels: z.number().int(),
    fields: z.number().int(),
    tasks: z.number().int(),
    subtasks: z.number().int().meta({ description: 'Of `tasks`, those with a parent' }),
    comments: z.number().int(),
    relations: z.number().int(),
    timeEntries: z.number().int(),
    members: z.number().int().meta({ description: 'People of the file matched by email to registered users, who become members' }),
  })
  .meta({ id: 'ImportCounts' });
export type ImportCounts = z.infer<typeof ImportCountsSchema>;

export const ImportSchema = z
  .object({
    id: IdSchema,
    status: z.enum(IMPORT_STATUSES),
    source: ImportSourceSchema,
    progress: z.object({ done: z.number().int(), total: z.number().int() }).meta({ description: 'Tasks written of the total, once the file is read' }),
    counts: ImportCountsSchema.nullable().meta({ description: 'What the import makes (null until the file is read)' }),
    warnings: z.array(z.string()),
    projectId: IdSchema.nullable().meta({ description: 'The new project, once the import has succeeded' }),
    error: z.string().nullable().meta({ description: 'Why the import failed; nothing of it was kept' }),
    createdAt: TimestampSchema,
    finishedAt: TimestampSchema.nullable(),
  })
  .meta({ id: 'Import' });
export type Import = z.infer<typeof ImportSchema>;

/** `POST /imports?dryRun=true`: what the import would make, nothing written. */
export const ImportDryRunSchema = z
  .object({
    dryRun: z.literal(true),
    source: ImportSourceSchema,
    project: z.object({ name: z.string() }),
    counts: ImportCountsSchema,
    warnings: z.array(z.string()),
    states: z.array(z.object({ name: z.string(), category: StateCategorySchema })),
    labels: z.array(z.object({ name: z.string(), color: z.string() })),
  })
  .meta({ id: 'ImportDryRun' });
export type ImportDryRun = z.infer<typeof ImportDryRunSchema>;

export const GetImportInput = z.object({ id: PathIdSchema }).strict();

/** An import's progress, live on its creator's notification stream (`event: import.progress`, no id: not replayed). */
export const ImportProgressEventSchema = z
  .object({
    id: IdSchema,
    status: z.enum(IMPORT_STATUSES),
    done: z.number().int(),
    total: z.number().int(),
    projectId: IdSchema.nullable(),
  })
  .meta({ id: 'ImportProgressEvent' });
export type ImportProgressEvent = z.infer<typeof ImportProgressEventSchema>;
