/** What a procedure wants on its REST response (status, ETag, Link); the transport applies it. */
export interface ResponseMeta {
  status?: number;
  headers: Record<string, string>;
}
