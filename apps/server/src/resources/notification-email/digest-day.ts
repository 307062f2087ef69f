const DAY_MS = 86_400_000;

/** The digest day due at `now`: today once the digest hour has come, else yesterday (`YYYY-MM-DD`). */
export function digestDay(now: Date, hour: number): string {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const day = now.getTime() >= today + hour * 3_600_000 ? today : today - DAY_MS;
  return new Date(day).toISOString().slice(0, 10);
}
