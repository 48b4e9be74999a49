/** Whole seconds from an ISO time to `now` (never negative); undefined without a time. */
export function secondsSince(iso: string | null | undefined, now: number): number | undefined {
  if (!iso) return undefined;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? undefined : Math.max(0, Math.floor((now - t) / 1000));
}

/** "4 s", "2 min 5 s", "5 min", "1 h 3 min". */
export function duration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min${seconds % 60 ? ` ${seconds % 60} s` : ''}`;
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
}

/** The local wall-clock time of an ISO time, "HH:MM:SS". */
export function clockTime(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

/** "12:03:04 (5 s ago)". */
export function timeAndAge(iso: string, now: number): string {
  return `${clockTime(iso)} (${duration(secondsSince(iso, now) ?? 0)} ago)`;
}
