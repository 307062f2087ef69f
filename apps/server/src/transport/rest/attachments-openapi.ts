/**
 * The OpenAPI description of the attachments' plain Fastify routes (rest/attachments.ts), which
 * trpc-to-openapi cannot see: the multipart upload and the binary answers. openapi.ts merges them
 * into the document, passing its helpers (a parameter: no import back, no cycle).
 */

type Json = Record<string, unknown>;

export interface OpenApiHelpers {
  pathParameter(path: string, name: string, description?: string): Json;
  errorResponse(status: number): { description: string; headers?: Record<string, unknown>; content?: Record<string, unknown> };
}

export const UPLOAD_PATH = '/tasks/{id}/attachments';
export const CONTENT_PATH = '/attachments/{id}/content';
export const THUMBNAIL_PATH = '/attachments/{id}/thumbnail';

const text = (description: string) => ({ description, schema: { type: 'string' } });

/** The headers every answer of bytes carries: what makes opening a stored file safe. */
const SAFE_BYTES_HEADERS = {
  ETag: text("The file's SHA-256 in quotes; If-None-Match with it answers 304"),
  'Content-Disposition': text("`inline` for PNG, JPEG, GIF, WebP and PDF, else `attachment`; `filename=\"…\"` (ASCII) and `filename*=UTF-8''…` (the name as uploaded)"),
  'Content-Security-Policy': text('Always `sandbox`: a document opened in place runs no script in the API\'s origin'),
  'X-Content-Type-Options': text('Always `nosniff`: the browser keeps the type the server decided from the bytes'),
  'Cache-Control': text('`private, no-cache`'),
};

const binary = (mediaType: string, description: string) => ({ [mediaType]: { schema: { type: 'string', format: 'binary', description } } });

export function attachmentOperations({ pathParameter, errorResponse }: OpenApiHelpers): Record<string, Record<string, Json>> {
  const refusals = (statuses: number[], overrides: Record<number, string> = {}) =>
    Object.fromEntries(statuses.map((status) => [String(status), { ...errorResponse(status), ...(overrides[status] ? { description: overrides[status] } : {}) }]));
  const signedLink = [
    { name: 'expires', in: 'query', description: 'Of a signed link (`downloadUrl`): its expiry, in Unix seconds', schema: { type: 'string', pattern: '^\\d{1,12}$' } },
    { name: 'signature', in: 'query', description: 'Of a signed link (`downloadUrl`): its signature; with `expires`, no token is needed', schema: { type: 'string', maxLength: 200 } },
  ];
  const ifNoneMatch = { name: 'If-None-Match', in: 'header', description: 'The ETag you hold: 304 when it is the file\'s', schema: { type: 'string', maxLength: 255 } };
  const readRefusals = {
    400: 'A signed link\'s `expires` or `signature` given more than once',
    403: "A tampered or expired signed link (reason `INVALID_SIGNED_LINK`), or a personal access token's scope or project limit",
    404: 'Unknown or malformed id, or an attachment of a project the caller is not a member of',
  };
  // A bearer token, or a signed link (no token at all).
  const security = [{ bearerAuth: [] }, { personalAccessToken: [] }, {}];

  return {
    [UPLOAD_PATH]: {
      post: {
        operationId: 'attachmentsUpload',
        tags: ['attachments'],
        summary: 'Attach a file to a task',
        description:
          'A `multipart/form-data` body with one part named `file`, streamed to storage (the SHA-256 computed on the way). EDITOR, ADMIN or owner. Larger than ATTACHMENT_MAX_BYTES (default 25 MiB) → 413 `PAYLOAD_TOO_LARGE`, and nothing is kept; over the project\'s PROJECT_STORAGE_QUOTA → 413 `QUOTA_EXCEEDED`. The content type is decided from the bytes, never from the part\'s Content-Type or the name. The filename is kept for display (control characters and path separators removed, at most 255 bytes). The same bytes attached twice in a project are stored once.',
        parameters: [pathParameter(UPLOAD_PATH, 'id')],
        requestBody: {
          required: true,
          content: {
            'multipart/form-data': {
              schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary', description: 'The file; its part\'s `filename` is the attachment\'s name' } } },
              encoding: { file: { contentType: 'application/octet-stream' } },
            },
          },
        },
        responses: {
          '201': {
            description: 'Created',
            headers: { Location: text('URL of the created attachment') },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Attachment' } } },
          },
          ...refusals([400, 401, 403, 404, 413, 415, 429, 500, 503], {
            400: 'No part named `file`, or a malformed multipart body (reason `FILE_REQUIRED`)',
            413: 'The file exceeds ATTACHMENT_MAX_BYTES (reason `PAYLOAD_TOO_LARGE`) or the project\'s storage quota (reason `QUOTA_EXCEEDED`); nothing is kept',
            415: 'A body other than multipart/form-data',
          }),
        },
      },
    },
    [CONTENT_PATH]: {
      get: {
        operationId: 'attachmentsContent',
        tags: ['attachments'],
        summary: "Download an attachment's bytes",
        description:
          'With a bearer token (members of the project), or without one through the signed `downloadUrl` of the attachment\'s JSON (valid ATTACHMENT_LINK_TTL seconds; tampered or expired → 403). `Content-Type` is what the bytes are (application/octet-stream when unknown); SVG and HTML are never served inline. `Range` (one range) → 206; an unsatisfiable one → 416.',
        security,
        parameters: [
          pathParameter(CONTENT_PATH, 'id'),
          ...signedLink,
          { name: 'Range', in: 'header', description: 'One byte range, e.g. `bytes=0-1023` (several ranges: the whole file)', schema: { type: 'string', maxLength: 255 } },
          { name: 'If-Range', in: 'header', description: 'The ETag the range is of: another one gets the whole file', schema: { type: 'string', maxLength: 255 } },
          ifNoneMatch,
        ],
        responses: {
          '200': {
            description: 'The whole file',
            headers: { ...SAFE_BYTES_HEADERS, 'Accept-Ranges': text('`bytes`'), 'Content-Length': text('The file\'s size') },
            content: binary('*/*', 'The bytes, as the Content-Type decided at upload'),
          },
          '206': {
            description: 'The requested range',
            headers: { ...SAFE_BYTES_HEADERS, 'Accept-Ranges': text('`bytes`'), 'Content-Range': text('`bytes <first>-<last>/<size>`'), 'Content-Length': text('The range\'s size') },
            content: binary('*/*', 'The bytes of the range'),
          },
          '304': { description: 'Not modified: If-None-Match names the file; no body', headers: { ETag: SAFE_BYTES_HEADERS.ETag } },
          ...refusals([400, 401, 403, 404, 429, 500, 503], readRefusals),
          '416': {
            ...errorResponse(416),
            description: 'The range lies outside the file',
            headers: { 'Content-Range': text('`bytes */<size>`') },
          },
        },
      },
    },
    [THUMBNAIL_PATH]: {
      get: {
        operationId: 'attachmentsThumbnail',
        tags: ['attachments'],
        summary: "An image attachment's preview",
        description: 'A WebP at most 400 px on its long side, for PNG, JPEG, GIF and WebP images of at most 50 megapixels (`thumbnail: true`); 404 for any other. Bearer token or signed link, as for the content.',
        security,
        parameters: [pathParameter(THUMBNAIL_PATH, 'id'), ...signedLink, ifNoneMatch],
        responses: {
          '200': { description: 'The preview', headers: SAFE_BYTES_HEADERS, content: binary('image/webp', 'A WebP image') },
          '304': { description: 'Not modified: If-None-Match names the preview; no body', headers: { ETag: SAFE_BYTES_HEADERS.ETag } },
          ...refusals([400, 401, 403, 404, 429, 500, 503], { ...readRefusals, 404: 'Unknown or malformed id, an attachment of a project the caller is not a member of, or one without a preview' }),
        },
      },
    },
  };
}
