import { isIP } from 'node:net';
import { InvalidArgumentError } from 'commander';
import { brokerUrls } from '../shared/broker-urls.js';
import { parseGoDuration } from '../shared/go-duration.js';
import { isValidNodeName } from '../shared/protocol/topics.js';

/** A commander argument parser for a number within bounds, with an error that names the option. */
export function numberIn(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max) {
      throw new InvalidArgumentError(`expected a number from ${min} to ${max}, got "${value}".`);
    }
    return n;
  };
}

export const port = numberIn(0, 65535);
export const positive = numberIn(Number.MIN_VALUE, 1e6);

export function nodeName(value: string): string {
  if (!isValidNodeName(value)) {
    throw new InvalidArgumentError(`"${value}" is not a valid node name (lower-case letters, digits, '-' and '.'; not kedge-cloud or kedge-cloud-…, the cloud's names).`);
  }
  return value;
}

/** `NAME=value`, repeatable: collected into a record (a later NAME wins). */
export function envVar(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(value);
  if (!match) throw new InvalidArgumentError(`expected NAME=value, got "${value}".`);
  return { ...previous, [match[1]!]: match[2]! };
}

/** A comma-separated list ("a,b"); empty items dropped. */
export function list(value: string): string[] {
  return value.split(',').map((v) => v.trim()).filter((v) => v !== '');
}

export function ipAddress(value: string): string {
  if (isIP(value) === 0) throw new InvalidArgumentError(`"${value}" is not an IPv4 or IPv6 address.`);
  return value;
}

/** An address others can reach: an IP, not the unspecified one (kube-apiserver refuses `--advertise-address 0.0.0.0` too). */
export function advertisedAddress(value: string): string {
  if (ipAddress(value) === '0.0.0.0' || value === '::') throw new InvalidArgumentError(`"${value}" is the unspecified address: give the IP other machines reach this one at.`);
  return value;
}

/** A positive Go duration ("1h", "30m", "90s"), in milliseconds. */
export function duration(value: string): number {
  const ms = parseGoDuration(value);
  if (ms === undefined || !(ms > 0)) throw new InvalidArgumentError(`expected a positive duration such as 1h, 30m or 90s, got "${value}".`);
  return ms;
}

const GO_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const GO_FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** A boolean as Go's strconv.ParseBool reads it, for kube's `--flag=false` style. */
export function goBool(value: string): boolean {
  if (GO_TRUE.has(value)) return true;
  if (GO_FALSE.has(value)) return false;
  throw new InvalidArgumentError(`strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax.`);
}

/** `--broker URL[,URL…]`: one broker, or the members of a cluster (tried in turn); kept as the comma list. */
export function brokerList(value: string): string {
  try {
    return brokerUrls(value).join(',');
  } catch (err) {
    throw new InvalidArgumentError(`${(err as Error).message}.`);
  }
}
