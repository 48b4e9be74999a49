import type { StatusCause } from '../../../shared/errors.js';

/**
 * The string formats of apimachinery's util/validation (kube 1.32), each returning kube's
 * messages for what is wrong with a value (an empty list when it is valid), and the field
 * causes kube's field package builds from them.
 */

const LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const SUBDOMAIN_FMT = `${LABEL_FMT}(\\.${LABEL_FMT})*`;
const QUALIFIED_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE_FMT = `(${QUALIFIED_FMT})?`;
const label = new RegExp(`^${LABEL_FMT}$`);
const subdomain = new RegExp(`^${SUBDOMAIN_FMT}$`);
const qualified = new RegExp(`^${QUALIFIED_FMT}$`);
const labelValue = new RegExp(`^${LABEL_VALUE_FMT}$`);
const QUALIFIED_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

export const maxLenError = (n: number): string => `must be no more than ${n} characters`;
export const inclusiveRangeError = (lo: number, hi: number): string => `must be between ${lo} and ${hi}, inclusive`;

/** RegexError: the message, its examples and the regex, worded (and spaced) exactly as kube's. */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

const utf8Length = (s: string): number => Buffer.byteLength(s, 'utf8');

export function dns1123LabelErrors(value: string): string[] {
  const errs = utf8Length(value) > 63 ? [maxLenError(63)] : [];
  if (label.test(value)) return errs;
  if (subdomain.test(value)) return [...errs, 'must not contain dots'];
  const msg = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
  return [...errs, regexError(msg, LABEL_FMT, 'my-name', '123-abc')];
}

export function dns1123SubdomainErrors(value: string): string[] {
  const errs = utf8Length(value) > 253 ? [maxLenError(253)] : [];
  if (subdomain.test(value)) return errs;
  const msg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
  return [...errs, regexError(msg, SUBDOMAIN_FMT, 'example.com')];
}

/** NameIsDNSSubdomain with prefix=true (a generateName): a trailing '-' is allowed, as before the random suffix. */
export function generateNamePrefixErrors(prefix: string, check: (v: string) => string[]): string[] {
  const masked = prefix.length > 1 && prefix.endsWith('-') ? `${prefix.slice(0, -2)}a` : prefix;
  return check(masked);
}

/** IsQualifiedName: label keys, annotation keys, finalizers: an optional DNS subdomain prefix and '/', then a name. */
export function qualifiedNameErrors(value: string): string[] {
  const parts = value.split('/');
  if (parts.length > 2) {
    return [`a qualified name ${regexError(QUALIFIED_MSG, QUALIFIED_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  }
  const errs: string[] = [];
  const name = parts[parts.length - 1] ?? '';
  if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    if (prefix === '') errs.push('prefix part must be non-empty');
    else errs.push(...dns1123SubdomainErrors(prefix).map((m) => `prefix part ${m}`));
  }
  if (name === '') errs.push('name part must be non-empty');
  else if (utf8Length(name) > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!qualified.test(name)) errs.push(`name part ${regexError(QUALIFIED_MSG, QUALIFIED_FMT, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

export function labelValueErrors(value: string): string[] {
  const errs = utf8Length(value) > 63 ? [maxLenError(63)] : [];
  if (labelValue.test(value)) return errs;
  const msg = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  return [...errs, regexError(msg, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345')];
}

/** IsValidPortName: an IANA_SVC_NAME (at most 15 of [-a-z0-9], a letter among them, no '--', no '-' at either end). */
export function portNameErrors(port: string): string[] {
  const errs: string[] = [];
  if (utf8Length(port) > 15) errs.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(port)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(port)) errs.push('must contain at least one letter (a-z)');
  if (port.includes('--')) errs.push('must not contain consecutive hyphens');
  if (port.length > 0 && (port.startsWith('-') || port.endsWith('-'))) errs.push('must not begin or end with a hyphen');
  return errs;
}

export function portNumberErrors(port: number): string[] {
  return port >= 1 && port <= 65535 ? [] : [inclusiveRangeError(1, 65535)];
}

/** IsRelaxedEnvVarName (RelaxedEnvironmentVariableValidation, on by default in 1.32): printable ASCII but '='. */
export function relaxedEnvVarNameErrors(value: string): string[] {
  if (value === '') return ['environment variable name must be non-empty'];
  const bad = [...value].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) > 0x7e || ch === '=');
  return bad ? ["a valid environment variable name must consist only of printable ASCII characters other than '='"] : [];
}

// field.Error constructors, with the message kube's ErrorBody gives each type.

export const invalidCauses = (field: string, value: unknown, msgs: string[]): StatusCause[] =>
  msgs.map((m) => ({ reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(value)}: ${m}`, field }));
export const notFound = (field: string, value: unknown): StatusCause => ({ reason: 'FieldValueNotFound', message: `Not found: ${JSON.stringify(value)}`, field });
export const duplicate = (field: string, value: unknown): StatusCause => ({ reason: 'FieldValueDuplicate', message: `Duplicate value: ${JSON.stringify(value)}`, field });
export const forbidden = (field: string, why: string): StatusCause => ({ reason: 'FieldValueForbidden', message: `Forbidden: ${why}`, field });
export const requiredBecause = (field: string, why: string): StatusCause => ({ reason: 'FieldValueRequired', message: `Required value: ${why}`, field });
export const tooLong = (field: string, maxBytes: number): StatusCause => ({ reason: 'FieldValueTooLong', message: `Too long: must have at most ${maxBytes} bytes`, field });
