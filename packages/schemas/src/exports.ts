import { z } from 'zod';

/**
 * The exports of a project and of one's own data (issue 38). Served by plain routes, not
 * procedures (they stream a download), so these are the query's and the file's shape only.
 */
export const EXPORT_FORMATS = ['json', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** What a file of ours says it is, first thing, so an importer recognises it and knows its layout. */
export const EXPORT_FILE_FORMAT = 'tasklane';
export const EXPORT_FILE_VERSION = 1;

/** `GET /projects/{id}/export`'s query: the format, JSON when not given. */
export const ProjectExportQuery = z
  .object({ format: z.enum(EXPORT_FORMATS, { error: 'format must be json or csv' }).default('json') })
  .strict();
export type ProjectExportQuery = z.infer<typeof ProjectExportQuery>;
