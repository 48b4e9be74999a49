/**
 * Kubernetes resource quantities ("100m", "2", "128Mi", "1Gi", "500M", "1e3", plain bytes),
 * parsed exactly (no floating point) and rounded up as resource.Quantity's Value and
 * MilliValue do. Malformed quantities give undefined.
 */
const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const FORM = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?)$/;

/** ceil(quantity × 10^scale), or undefined if the text is not a quantity. */
export function scaledQuantity(text: string, scale: number): number | undefined {
  const match = FORM.exec(text.trim());
  if (!match) return undefined;
  const [, sign, number, exponent, suffix = ''] = match;
  const [whole, fraction = ''] = number!.split('.');
  let numerator = BigInt(`${whole}${fraction}` || '0');
  let denominator = 1n;
  const exp10 = (exponent ? Number(exponent.slice(1)) : (DECIMAL[suffix] ?? 0)) - fraction.length + scale;
  if (exp10 >= 0) numerator *= 10n ** BigInt(exp10);
  else denominator = 10n ** BigInt(-exp10);
  const exp2 = BINARY[suffix];
  if (exp2 !== undefined) numerator <<= BigInt(exp2);
  const negative = sign === '-' && numerator !== 0n;
  // Round away from zero, as Quantity.ScaledValue does.
  const rounded = (numerator + denominator - 1n) / denominator;
  return Number(negative ? -rounded : rounded);
}

/** The quantity in whole units (bytes, cores, pods), rounded up. */
export function quantityValue(text: string): number | undefined {
  return scaledQuantity(text, 0);
}

/** The quantity in thousandths (millicores), rounded up. */
export function quantityMilliValue(text: string): number | undefined {
  return scaledQuantity(text, 3);
}
