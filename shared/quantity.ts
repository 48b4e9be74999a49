/**
 * Kubernetes resource quantities ("100m", "2", "128Mi", "1Gi", "500M", "1e3"), parsed with
 * resource.Quantity's grammar and errors, exactly (no floating point), rounded up to a
 * nano-unit as ParseQuantity does. Bounded work whatever the text: a value whose magnitude
 * exceeds 2^63-1 units (where kube would clamp) is refused as out of range before any big
 * number is made, and digits beyond what can matter are only scanned, never converted.
 */

export const QUANTITY_FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
export const QUANTITY_SUFFIX_ERROR = "unable to parse quantity's suffix";
/** The largest magnitude, in units, that a quantity may have (kube's int64 bound). */
export const MAX_QUANTITY = 2n ** 63n - 1n;
export const QUANTITY_RANGE_ERROR = `must be between -${MAX_QUANTITY} and ${MAX_QUANTITY}`;

export type ParsedQuantity = { ok: true; negative: boolean; /** The magnitude in 10^-9 units, rounded up. */ nanos: bigint } | { ok: false; error: string };

// Sign, whole digits, fraction, then a suffix of letters and/or a sign, then digits (kube's
// parseQuantityString). Unambiguous, so matching stays linear on any input.
const GRAMMAR = /^([+-]?)([0-9]*)(\.[0-9]*)?((?:[eEinumkKMGTP]+[-+]?|[-+])[0-9]*)?$/;
const DECIMAL: Readonly<Record<string, number>> = { '': 0, n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const LOG10_2 = Math.log10(2);
const MAX_NANOS = MAX_QUANTITY * 10n ** 9n;

/** Parses a quantity written as a string (or, as JSON allows, a number). */
export function parseQuantity(value: unknown): ParsedQuantity {
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  if (typeof text !== 'string' || text === '') return { ok: false, error: QUANTITY_FORMAT_ERROR };
  const match = GRAMMAR.exec(text);
  // A number is needed before the suffix, as the message's expression says ("Mi" alone is no quantity).
  if (!match || (match[2] === '' && match[3] === undefined)) return { ok: false, error: QUANTITY_FORMAT_ERROR };
  const [, sign, whole = '', dotted = '.', suffix = ''] = match;
  const fraction = dotted.slice(1);
  const exponents = suffixExponents(suffix);
  if (!exponents) return { ok: false, error: QUANTITY_SUFFIX_ERROR };
  const digits = `${whole}${fraction}`;
  const first = digits.search(/[^0]/);
  const nanos = magnitudeInNanos(first < 0 ? '' : digits.slice(first), exponents.ten - fraction.length, exponents.two);
  if (nanos === undefined) return { ok: false, error: QUANTITY_RANGE_ERROR };
  return { ok: true, negative: sign === '-' && nanos !== 0n, nanos };
}

/** ceil(|quantity| × 10^scale) with its sign (scale 0: units, 3: thousandths), or undefined when the text is not a quantity. */
export function scaledQuantity(value: unknown, scale: 0 | 3): number | undefined {
  const parsed = parseQuantity(value);
  if (!parsed.ok) return undefined;
  const magnitude = Number(ceilDiv(parsed.nanos, 10n ** BigInt(9 - scale)));
  return parsed.negative ? -magnitude : magnitude;
}

/** The powers of ten and of two a suffix stands for; undefined for a suffix kube does not know. */
function suffixExponents(suffix: string): { ten: number; two: number } | undefined {
  if (Object.hasOwn(DECIMAL, suffix)) return { ten: DECIMAL[suffix]!, two: 0 };
  if (Object.hasOwn(BINARY, suffix)) return { ten: 0, two: BINARY[suffix]! };
  const match = /^[eE]([+-]?)0*([0-9]+)$/.exec(suffix);
  // Go's strconv.ParseInt(…, 10, 64): beyond int64 is an error (looked at before any BigInt is made).
  if (!match || match[2]!.length > 19) return undefined;
  const exponent = BigInt(`${match[1]}${match[2]}`);
  if (exponent > MAX_QUANTITY || exponent < -MAX_QUANTITY - 1n) return undefined;
  return { ten: Number(exponent), two: 0 };
}

/**
 * ceil(digits × 10^ten × 2^two × 10^9), or undefined past MAX_NANOS. `digits` has no leading
 * zeros ('' is zero). Orders of magnitude are settled first, so every number built is small.
 */
function magnitudeInNanos(digits: string, ten: number, two: number): bigint | undefined {
  if (digits === '') return 0n;
  const order = digits.length + ten; // digits × 10^ten lies in [10^(order-1), 10^order)
  if (order - 1 + two * LOG10_2 >= 19) return undefined;
  if (order + two * LOG10_2 < -10) return 1n; // below a nano-unit: rounded up, as kube does
  const shift = ten + 9;
  let nanos: bigint;
  if (shift >= 0) nanos = BigInt(digits) * 10n ** BigInt(shift) * 2n ** BigInt(two);
  else if (-shift >= two) nanos = ceilDiv(ceilDivPow10(digits, -shift - two), 5n ** BigInt(two)); // d·2^t/10^k = d/(10^(k-t)·5^t)
  else nanos = ceilDiv(BigInt(digits) * 2n ** BigInt(two + shift), 5n ** BigInt(-shift));
  return nanos <= MAX_NANOS ? nanos : undefined;
}

/** ceil(digits / 10^places), reading the dropped digits only to see whether any is not zero. */
function ceilDivPow10(digits: string, places: number): bigint {
  if (places >= digits.length) return 1n; // digits is not zero
  const kept = BigInt(digits.slice(0, digits.length - places));
  return /[1-9]/.test(digits.slice(digits.length - places)) ? kept + 1n : kept;
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}
