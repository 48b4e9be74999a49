/*
 * crictl's ways of printing: its table (Go's tabwriter: columns at least 20 wide, 3 spaces
 * apart), ids cut to 13 characters, times as docker's go-units HumanDuration says them.
 */

/** As crictl's truncatedIDLen. */
export const TRUNCATED_ID_LENGTH = 13;

export const truncatedId = (id: string): string => id.slice(0, TRUNCATED_ID_LENGTH);

/** Rows as crictl prints them: every column but the last padded to its widest cell plus 3, and to 20 at least. */
export function crictlTable(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(20, ...rows.map((r) => (r[i] ?? '').length + 3)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('')).join('\n') + '\n';
}

/** How long ago, as go-units' HumanDuration (what crictl's CREATED column shows, with " ago"). */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < 1) return 'Less than a second';
  if (seconds === 1) return '1 second';
  if (seconds < 60) return `${seconds} seconds`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes === 1) return 'About a minute';
  if (minutes < 60) return `${minutes} minutes`;
  const hours = Math.floor(ms / 3_600_000 + 0.5);
  if (hours === 1) return 'About an hour';
  if (hours < 48) return `${hours} hours`;
  if (hours < 24 * 7 * 2) return `${Math.floor(hours / 24)} days`;
  if (hours < 24 * 30 * 2) return `${Math.floor(hours / 24 / 7)} weeks`;
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24 / 30)} months`;
  return `${Math.floor(ms / 3_600_000 / 24 / 365)} years`;
}

const SIZE_UNITS = ['B', 'kB', 'MB', 'GB', 'TB', 'PB'];

/** Bytes as go-units' HumanSize: decimal units, four significant digits ("8.192MB"). */
export function humanSize(bytes: number): string {
  let size = bytes;
  let unit = 0;
  while (size >= 1000 && unit < SIZE_UNITS.length - 1) {
    size /= 1000;
    unit++;
  }
  return `${Number(size.toPrecision(4))}${SIZE_UNITS[unit]}`;
}

/** CRI's int64 nanoseconds (a string in JSON) as milliseconds. */
export const millisOf = (nanos: string): number => Number(BigInt(nanos) / 1_000_000n);

/** As Go's time.RFC3339Nano: no fraction when it is zero, no trailing zeros in it. */
export function rfc3339Nano(nanos: string): string {
  const ns = BigInt(nanos);
  const seconds = new Date(Number(ns / 1_000_000_000n) * 1000).toISOString().slice(0, 19);
  const fraction = (ns % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return `${seconds}${fraction ? `.${fraction}` : ''}Z`;
}
