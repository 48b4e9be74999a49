import { KedgeError } from '../../shared/errors.js';
import { MAX_PAYLOAD_BYTES } from '../../shared/protocol/codec.js';
import { isValidNodeName, topics } from '../../shared/protocol/topics.js';
import { CLOUD_USERNAME } from './acl.js';
import { MAX_KEEPALIVE_SECONDS } from './connection-guard.js';

/**
 * Configuration for Mosquitto (2.0) as the cloud's external broker: a password file, an ACL
 * file with the rules of acl.ts, and a mosquitto.conf that ties them to a listener. Pure:
 * the caller writes the files.
 */
export interface BrokerUser {
  /** `kedge-cloud` or a node name. */
  username: string;
  /** `$7$…` (password-hash.ts), the format mosquitto_passwd writes. */
  passwordHash: string;
}

export interface MosquittoListener {
  port: number;
  /** Address to bind; default 127.0.0.1. */
  host?: string;
  /** Absolute paths of the files written from mosquittoPasswordFile and mosquittoAclFile. */
  passwordFile: string;
  aclFile: string;
}

const HASH = /^\$7\$\d{1,7}\$[A-Za-z0-9+/]+={0,2}\$[A-Za-z0-9+/]+={0,2}$/;
/** Room for the fixed header, the topic and the packet id around a payload of the largest size. */
const PACKET_OVERHEAD_BYTES = 1024;
/** Messages the broker queues per client beyond those in flight; the hub takes every node's on one connection. */
const MAX_QUEUED_MESSAGES = 10_000;

/** `username:hash` lines, one per user; refuses a name or hash that would not round-trip. */
export function mosquittoPasswordFile(users: readonly BrokerUser[]): string {
  const seen = new Set<string>();
  const lines = users.map(({ username, passwordHash }) => {
    if (username !== CLOUD_USERNAME && !isValidNodeName(username)) throw new KedgeError('Invalid', `"${username}" is neither ${CLOUD_USERNAME} nor a valid node name`);
    if (seen.has(username)) throw new KedgeError('Invalid', `user ${username} is listed twice`);
    if (!HASH.test(passwordHash)) throw new KedgeError('Invalid', `the password of ${username} is not a $7$ hash`);
    seen.add(username);
    return `${username}:${passwordHash}\n`;
  });
  return lines.join('');
}

/**
 * The same rules as acl.ts: a node (username = node name) reads only its own down and
 * stream-down topics and writes only its own up, presence and stream-up topics; the cloud hub reads and writes everything.
 * Nothing precedes the first `user` line, so anonymous clients get no topic at all.
 */
export function mosquittoAclFile(): string {
  const node = '%u';
  return [
    '# kedge: topic access per user (docs/protocol.md, "Topics").',
    '# Every node: its own topics only (%u is the username, which is the node name).',
    `pattern read ${topics.down(node)}`,
    `pattern write ${topics.up(node)}`,
    `pattern write ${topics.presence(node)}`,
    `pattern read ${topics.streamDown(node)}`,
    `pattern write ${topics.streamUp(node)}`,
    '',
    '# The cloud hub: every topic.',
    `user ${CLOUD_USERNAME}`,
    'topic readwrite #',
    '',
  ].join('\n');
}

/**
 * A mosquitto.conf (or a file for its conf.d): one listener that admits only the users of
 * the password file, within the ACL, and refuses messages larger than the protocol allows
 * (shared/protocol/codec.ts) before they reach anyone.
 */
export function mosquittoConf(listener: MosquittoListener): string {
  const host = listener.host ?? '127.0.0.1';
  if (!Number.isInteger(listener.port) || listener.port < 1 || listener.port > 65535) throw new KedgeError('Invalid', `port ${listener.port} is not from 1 to 65535`);
  for (const path of [listener.passwordFile, listener.aclFile]) {
    if (!path.startsWith('/') || /\s/.test(path)) throw new KedgeError('Invalid', `"${path}" must be an absolute path without white space`);
  }
  if (/\s/.test(host) || host === '') throw new KedgeError('Invalid', `"${host}" is not an address to listen on`);
  return [
    '# kedge: Mosquitto as the broker of a kedge cloud (kedge cloud --broker mqtt://<host>:<port>).',
    `listener ${listener.port} ${host}`,
    'allow_anonymous false',
    `password_file ${listener.passwordFile}`,
    `acl_file ${listener.aclFile}`,
    '# kedge drops larger payloads anyway; the broker need not carry them.',
    `max_packet_size ${MAX_PAYLOAD_BYTES + PACKET_OVERHEAD_BYTES}`,
    `max_queued_messages ${MAX_QUEUED_MESSAGES}`,
    '# A client asking for no keepalive, or a longer one, is refused (CONNACK 2), as by the embedded broker.',
    `max_keepalive ${MAX_KEEPALIVE_SECONDS}`,
    'set_tcp_nodelay true',
    '',
  ].join('\n');
}
