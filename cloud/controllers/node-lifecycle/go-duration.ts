/** Go's time.ParseDuration, in milliseconds: "24h", "1h30m", "90m", "1.5s", "300ms", "0". */
const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const WHOLE = /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$/;
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g;

/** The duration in milliseconds, or undefined when `text` is not a Go duration. */
export function parseGoDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (/^[-+]?0$/.test(trimmed)) return 0;
  if (!WHOLE.test(trimmed)) return undefined;
  let ms = 0;
  for (const [, amount, unit] of trimmed.matchAll(PART)) ms += Number(amount) * UNIT_MS[unit!]!;
  return trimmed.startsWith('-') ? -ms : ms;
}
