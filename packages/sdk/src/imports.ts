import { failureOf, type TransferContext } from './attachments';
import { TasklaneError } from './errors';
import type { Import } from './generated/api';

/** The tools a file may come from (docs/api.md, "Import", says what each maps to what). */
export type ImportSource = 'trello' | 'jira' | 'github' | 'asana' | 'csv' | 'tasklane';

/** A plain CSV's columns by field: each names the header of the column holding it; only `title` is required. */
export interface CsvMapping {
  title: string;
  description?: string;
  status?: string;
  priority?: string;
  dueDate?: string;
  assigneeEmail?: string;
  labels?: string;
  /** Custom field name → column: a text field of that name is made. */
  fields?: Record<string, string>;
}

export interface ImportInput {
  source: ImportSource;
  /** The exported file: a Blob or File, its text, or its bytes. */
  file: Blob | string | Uint8Array;
  /** For `csv` only. */
  mapping?: CsvMapping | undefined;
}

/** What an import makes, by kind. */
export type ImportCounts = NonNullable<Import['counts']>;

/** What an import would make (`dryRun`): nothing is written. */
export interface ImportDryRun {
  dryRun: true;
  source: ImportSource;
  project: { name: string };
  counts: ImportCounts;
  warnings: string[];
  states: { name: string; category: 'backlog' | 'unstarted' | 'started' | 'completed' | 'cancelled' }[];
  labels: { name: string; color: string }[];
}

/** An import just queued: follow it with `tl.imports.get({ id })`. */
export interface ImportQueued {
  id: string;
  status: 'pending';
  source: ImportSource;
}

export interface ImportTransfer {
  /** `POST /api/v1/imports`: the file queued as an import (202); follow it with `get` or `wait`. */
  create(input: ImportInput, options?: { signal?: AbortSignal | undefined }): Promise<ImportQueued>;
  /** `POST /api/v1/imports?dryRun=true`: what the import would make, its warnings; nothing written. */
  dryRun(input: ImportInput, options?: { signal?: AbortSignal | undefined }): Promise<ImportDryRun>;
}

/** The upload is multipart, not a procedure: plain HTTP beside them, as attachments' bytes are. */
export function importTransfer(context: TransferContext): ImportTransfer {
  async function send(input: ImportInput, dryRun: boolean, signal: AbortSignal | undefined): Promise<unknown> {
    const form = new FormData();
    form.append('source', input.source);
    if (input.mapping) form.append('mapping', JSON.stringify(input.mapping));
    const file = input.file instanceof Blob ? input.file : new Blob([typeof input.file === 'string' ? input.file : new Uint8Array(input.file)]);
    form.append('file', file, typeof File !== 'undefined' && input.file instanceof File ? input.file.name : 'export');
    let response: Response;
    try {
      response = await context.fetch(`${context.baseUrl}/api/v1/imports${dryRun ? '?dryRun=true' : ''}`, {
        method: 'POST',
        headers: await context.authorization(),
        body: form,
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      throw TasklaneError.from(error);
    }
    if (!response.ok) throw await failureOf(response);
    return response.json();
  }
  return {
    create: async (input, options = {}) => (await send(input, false, options.signal)) as ImportQueued,
    dryRun: async (input, options = {}) => (await send(input, true, options.signal)) as ImportDryRun,
  };
}
