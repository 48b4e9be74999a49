import { mulberry32 } from '../support/random.js';

/**
 * Seeded generators of hostile input for the broker (raw TCP bytes) and for the sync protocol
 * (MQTT payloads): noise, random JSON, and valid envelopes bent out of shape.
 */
export type Rand = ReturnType<typeof rand>;

export function rand(seed: number) {
  const next = mulberry32(seed);
  const int = (n: number): number => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const bytes = (n: number): Buffer => {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) b[i] = int(256);
    return b;
  };
  return { next, int, pick, bytes, chance: (p: number): boolean => next() < p };
}

// ---- raw bytes for the broker's TCP port

/** MQTT's variable-length "remaining length" field. */
export function remainingLength(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    out.push(b);
  } while (n > 0);
  return out;
}

const mqttString = (s: string): Buffer => {
  const b = Buffer.from(s);
  return Buffer.concat([Buffer.from([(b.length >> 8) & 0xff, b.length & 0xff]), b]);
};

/** A well-formed MQTT 3.1.1 CONNECT packet. */
export function connectPacket(clientId: string, username?: string, password?: string): Buffer {
  const flags = (username !== undefined ? 0x80 : 0) | (password !== undefined ? 0x40 : 0) | 0x02;
  const parts = [mqttString('MQTT'), Buffer.from([4, flags, 0, 30]), mqttString(clientId)];
  if (username !== undefined) parts.push(mqttString(username));
  if (password !== undefined) parts.push(mqttString(password));
  const body = Buffer.concat(parts);
  return Buffer.concat([Buffer.from([0x10, ...remainingLength(body.length)]), body]);
}

const FIRST_BYTES = [0x10, 0x11, 0x1f, 0x20, 0x30, 0x32, 0x3d, 0x82, 0xa2, 0xc0, 0xe0, 0xf0, 0x00, 0xff];
const BIG_LENGTHS = [[0xff, 0xff, 0xff, 0x7f], [0xff, 0xff, 0xff, 0xff, 0x01], [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], [0x80, 0x80, 0x80, 0x80, 0x00], [0xff], [0x80]];
const PROTOCOL_NAMES = ['MQTT', 'MQIsdp', 'mqtt', '', 'MQTT\u0000', 'MQTTMQTTMQTT', 'ñ'];
const USERNAMES = ['edge-1', 'fz-node', 'Bad/Name', '#', '+', '', 'kedge-cloud', 'x'.repeat(300)];

export type RawKind = 'noise' | 'connect-garbage' | 'huge-length' | 'bad-header' | 'connect-then-garbage';

/** Byte strings for a fresh TCP connection to the broker, each tagged with how it was made. */
export function rawPayloads(r: Rand, count: number, edgeToken: string): { kind: RawKind; bytes: Buffer }[] {
  const out: { kind: RawKind; bytes: Buffer }[] = [];
  for (let i = 0; i < count; i++) {
    const roll = r.next();
    if (roll < 0.3) {
      out.push({ kind: 'noise', bytes: r.bytes(1 + r.int(r.chance(0.1) ? 65_536 : 512)) });
    } else if (roll < 0.5) {
      const claimed = r.chance(0.2) ? r.int(268_435_455) : r.int(300);
      const body = r.bytes(r.chance(0.5) ? Math.min(claimed, 4096) : r.int(300));
      out.push({ kind: 'connect-garbage', bytes: Buffer.concat([Buffer.from([0x10, ...remainingLength(claimed)]), body]) });
    } else if (roll < 0.65) {
      out.push({ kind: 'huge-length', bytes: Buffer.concat([Buffer.from([r.pick(FIRST_BYTES), ...r.pick(BIG_LENGTHS)]), r.bytes(r.int(64))]) });
    } else if (roll < 0.82) {
      const header = Buffer.concat([mqttString(r.pick(PROTOCOL_NAMES)), Buffer.from([r.int(256), r.int(256), r.int(256), r.int(256)]), r.bytes(r.int(200))]);
      const claimed = r.chance(0.7) ? header.length : r.int(1000);
      out.push({ kind: 'bad-header', bytes: Buffer.concat([Buffer.from([0x10, ...remainingLength(claimed)]), header]) });
    } else {
      const password = r.pick([edgeToken, 'wrong', undefined]);
      const connect = connectPacket(`fz-raw-${i}`, r.chance(0.8) ? r.pick(USERNAMES) : undefined, password);
      out.push({ kind: 'connect-then-garbage', bytes: Buffer.concat([connect, r.bytes(r.int(300))]) });
    }
  }
  return out;
}

// ---- MQTT payloads for the sync protocol

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Path = (string | number)[];

const KEYS = ['v', 'id', 'seq', 'sender', 'epoch', 'type', 'parentId', 'ref', 'body', 'kind', 'name', 'uid', 'namespace', 'resourceVersion', 'metadata', 'spec', 'status', 'holds', 'bootId', 'statusVersion', '__proto__', 'constructor', 'zz', ''];
const NUMBERS = [0, 1, -1, 1.5, -0.5, 2 ** 31, 2 ** 53, 2 ** 53 + 2, -(2 ** 53), 1e21, 1e308, -1e308, 5e-324, 1.2345678901234568e29];
const WORDS = ['', ' ', 'x', 'null', 'true', '0', '-1', 'NaN', 'Infinity', '__proto__', 'hello', 'apply', 'Pod', 'default', 'ñ\u0000\u202e', '../../etc', 'kedge/v1/+/up', '#'];
const TYPES = ['', 'HELLO', 'hallo', 'hello ', 'apply', 'delete', 'synced', 'logRequest', 'hello', 'podStatus', 'nodeStatus', 'heartbeat', 'logResponse', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];
const SENDERS = ['edge-1', 'cloud', 'fuzz-2', '', 'FUZZ-1', 'x'.repeat(254)];

function randomString(r: Rand): string {
  const roll = r.next();
  if (roll < 0.5) return r.pick(WORDS);
  if (roll < 0.8) return r.bytes(r.int(24)).toString('latin1');
  return String.fromCodePoint(...Array.from({ length: 1 + r.int(16) }, () => r.int(0xd7ff)));
}

export function randomJson(r: Rand, depth = 0): Json {
  switch (r.int(depth > 3 ? 4 : 6)) {
    case 0: return null;
    case 1: return r.chance(0.5);
    case 2: return r.pick(NUMBERS);
    case 3: return randomString(r);
    case 4: return Array.from({ length: r.int(4) }, () => randomJson(r, depth + 1));
    default: return Object.fromEntries(Array.from({ length: r.int(5) }, () => [r.pick(KEYS), randomJson(r, depth + 1)]));
  }
}

function paths(value: Json, at: Path = [], out: Path[] = []): Path[] {
  if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      const path = [...at, Array.isArray(value) ? Number(key) : key];
      out.push(path);
      paths(child, path, out);
    }
  }
  return out;
}

function parentOf(root: Json, path: Path): Record<string | number, Json> | undefined {
  let node: Json = root;
  for (const key of path.slice(0, -1)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string | number, Json>)[key] ?? null;
  }
  return node !== null && typeof node === 'object' ? (node as Record<string | number, Json>) : undefined;
}

function setAt(root: Json, path: Path, value: Json | undefined): void {
  const parent = parentOf(root, path);
  const key = path[path.length - 1]!;
  if (!parent) return;
  if (value !== undefined) Object.defineProperty(parent, key, { value, enumerable: true, writable: true, configurable: true });
  else if (Array.isArray(parent)) parent.splice(Number(key), 1);
  else delete parent[key];
}

/** Text standing in for a value nested `depth` levels deep, spliced in after JSON.stringify. */
function deepText(depth: number, array: boolean): string {
  return array ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '{}' + '}'.repeat(depth);
}

/** A template envelope with one to three random mutations, serialized (and sometimes cut or padded). */
export function mutatedEnvelope(r: Rand, template: Record<string, Json>): Buffer {
  const m = structuredClone(template) as Json;
  const deep = new Map<string, string>();
  const anyPath = (): Path => {
    const all = paths(m);
    return all.length > 0 ? r.pick(all) : ['zz'];
  };
  for (let n = 1 + r.int(3); n > 0; n--) {
    switch (r.int(11)) {
      case 0: setAt(m, anyPath(), undefined); break;
      case 1: setAt(m, anyPath(), r.chance(0.5) ? randomJson(r) : r.pick(NUMBERS)); break;
      case 2: setAt(m, anyPath(), 'x'.repeat(r.pick([129, 257, 4096, 100_000]))); break;
      case 3: setAt(m, anyPath(), r.pick(NUMBERS)); break;
      case 4: {
        const uid = r.pick(['', 'not-the-uid', 'x'.repeat(129), r.bytes(8).toString('hex')]);
        setAt(m, ['ref', 'uid'], uid);
        if (r.chance(0.5)) setAt(m, ['body', 'metadata', 'uid'], uid);
        break;
      }
      case 5: setAt(m, ['seq'], r.pick([-1, -(1 + r.int(1_000_000)), -0.5, 1.5, 2 ** 53, '7'])); break;
      case 6: setAt(m, ['type'], r.pick(TYPES)); break;
      case 7: {
        const marker = `@@deep-${deep.size}@@`;
        deep.set(JSON.stringify(marker), deepText(r.pick([32, 1000, 5000, 50_000]), r.chance(0.3)));
        setAt(m, r.chance(0.6) ? ['body'] : anyPath(), marker);
        break;
      }
      case 8: setAt(m, ['sender'], r.pick(SENDERS)); break;
      case 9: setAt(m, ['v'], r.pick([0, 2, '1', null, 1.0000001])); break;
      default: {
        const target = r.chance(0.5) ? [] : anyPath();
        setAt(m, [...target, r.pick(KEYS)], randomJson(r));
      }
    }
  }
  let text = JSON.stringify(m);
  for (const [marker, replacement] of deep) text = text.replace(marker, replacement);
  if (r.chance(0.05)) text = text.slice(0, r.int(text.length));
  if (r.chance(0.03)) text += r.pick(['}', ']', ',', ' garbage', '\u0000', '{}']);
  return Buffer.from(text);
}

/**
 * A mix for one topic: random bytes, random JSON values, mutated templates, untouched
 * templates (valid and pointless), plus two payloads over the codec's size limit and an empty one.
 */
export function protocolPayloads(r: Rand, count: number, templates: readonly Record<string, Json>[]): Buffer[] {
  const out: Buffer[] = [Buffer.alloc(0), Buffer.from(JSON.stringify({ ...templates[0], pad: 'x'.repeat(1024 * 1024) })), r.bytes(1024 * 1024 + 1)];
  while (out.length < count) {
    const roll = r.next();
    if (roll < 0.15) out.push(r.bytes(r.int(2048)));
    else if (roll < 0.3) out.push(Buffer.from(JSON.stringify(randomJson(r))));
    else if (roll < 0.35) out.push(Buffer.from(JSON.stringify(r.pick(templates))));
    else out.push(mutatedEnvelope(r, r.pick(templates)));
  }
  return out;
}

export type { Json };
