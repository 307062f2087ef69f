/** Saves a file the app fetched itself (with the session's token, which a plain link cannot send) under `name`. */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has started from the link; the object URL is not needed afterwards.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** The name a download answer gives itself (`Content-Disposition: attachment; filename="…"`), else `fallback`. */
export function filenameOf(response: Response, fallback: string): string {
  const match = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '');
  return match?.[1] ?? fallback;
}

/** A download answer (the SDK's Response) saved as the file it names. */
export async function saveResponse(response: Response, fallback: string): Promise<void> {
  saveBlob(await response.blob(), filenameOf(response, fallback));
}
