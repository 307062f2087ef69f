import { fetchFile, type TransferContext } from './attachments';

/** What `tl.projects.export` takes: the project and the file's format (JSON by default). */
export interface ProjectExportInput {
  id: string;
  format?: 'json' | 'csv' | undefined;
}

export interface ExportTransfer {
  /**
   * `GET /api/v1/projects/{id}/export` (ADMIN or owner): the server's Response, streamed — `.text()`,
   * `.json()` (format `json`), `.blob()` or `.body`; `Content-Disposition` names the file.
   */
  projectExport(input: ProjectExportInput, options?: { signal?: AbortSignal | undefined }): Promise<Response>;
  /** `GET /api/v1/auth/me/export`: your own data as JSON, in a Response; needs a login (a personal access token gets `SESSION_REQUIRED`). */
  exportMe(options?: { signal?: AbortSignal | undefined }): Promise<Response>;
}

/** The exports are downloads, not procedures: plain HTTP beside them, as attachments' bytes are. */
export function exportTransfer(context: TransferContext): ExportTransfer {
  return {
    projectExport: ({ id, format = 'json' }, options = {}) =>
      fetchFile(context, `/api/v1/projects/${encodeURIComponent(id)}/export?format=${encodeURIComponent(format)}`, options.signal),
    exportMe: (options = {}) => fetchFile(context, '/api/v1/auth/me/export', options.signal),
  };
}
