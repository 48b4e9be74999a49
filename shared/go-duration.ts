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

/** Go's time.Duration String of `ms` (truncated to the millisecond): "0s", "523ms", "1.2s", "15s", "1m2.5s", "1h0m0s". */
export function formatGoDuration(ms: number): string {
  const whole = Math.max(0, Math.floor(ms));
  if (whole === 0) return '0s';
  if (whole < 1000) return `${whole}ms`;
  const h = Math.floor(whole / 3_600_000);
  const m = Math.floor((whole % 3_600_000) / 60_000);
  const s = ((whole % 60_000) / 1000).toFixed(3).replace(/\.?0+$/, '');
  if (h > 0) return `${h}h${m}m${s}s`;
  return m > 0 ? `${m}m${s}s` : `${s}s`;
}
