/** What a procedure wants on its REST response (status, ETag, Link); the transport applies it. */
export interface ResponseMeta {
  status?: number;
  headers: Record<string, string>;
  /** A body other than the procedure's JSON, for a representation the client asked for (CSV); REST only. */
  body?: { contentType: string; text: string };
}
