import { describe, expect, it } from 'vitest';
import { mayPublish, maySubscribe, type BrokerIdentity } from '../../cloud/hub/acl.js';
import { mosquittoAclFile, mosquittoConf, mosquittoPasswordFile } from '../../cloud/hub/mosquitto-config.js';
import { hashPassword } from '../../cloud/hub/password-hash.js';

const hash = hashPassword('secret', Buffer.alloc(12, 7));

describe('the Mosquitto password file', () => {
  it('has one username:hash line per user', () => {
    const text = mosquittoPasswordFile([
      { username: 'kedge-cloud', passwordHash: hash },
      { username: 'edge-1', passwordHash: hash },
    ]);
    expect(text).toBe(`kedge-cloud:${hash}\nedge-1:${hash}\n`);
  });

  it('is empty for no users', () => expect(mosquittoPasswordFile([])).toBe(''));

  it.each([
    ['a name that is not a node name', [{ username: 'Edge/1', passwordHash: hash }], /neither kedge-cloud nor a valid node name/],
    ['a colon in the name', [{ username: 'edge:1', passwordHash: hash }], /valid node name/],
    ['a user twice', [{ username: 'edge-1', passwordHash: hash }, { username: 'edge-1', passwordHash: hash }], /listed twice/],
    ['a plaintext password', [{ username: 'edge-1', passwordHash: 'secret' }], /not a \$7\$ hash/],
    ['a hash with a line break', [{ username: 'edge-1', passwordHash: `${hash}\nedge-2:${hash}` }], /not a \$7\$ hash/],
  ])('refuses %s', (_what, users, message) => expect(() => mosquittoPasswordFile(users)).toThrow(message));
});

/**
 * What Mosquitto's acl_file grants (for topics without wildcards): a `pattern` line for every
 * user with %u replaced, a `topic` line for the user of the `user` block it is in.
 */
function grants(acl: string, username: string, topic: string, access: 'read' | 'write'): boolean {
  let user: string | undefined;
  for (const line of acl.split('\n')) {
    const words = line.trim().split(/\s+/);
    if (words[0] === 'user') user = words[1];
    if (words[0] !== 'pattern' && words[0] !== 'topic') continue;
    const [kind, mode, filter] = words.length === 3 ? words : [words[0], 'readwrite', words[1]];
    if (kind === 'topic' && user !== username) continue;
    if (mode !== 'readwrite' && mode !== access) continue;
    const rule = kind === 'pattern' ? filter!.split('/').map((level) => (level === '%u' ? username : level)) : filter!.split('/');
    if (matches(rule, topic.split('/'))) return true;
  }
  return false;
}

function matches(filter: string[], topic: string[]): boolean {
  for (let i = 0; i < filter.length; i++) {
    if (filter[i] === '#') return true;
    if (i >= topic.length || (filter[i] !== '+' && filter[i] !== topic[i])) return false;
  }
  return filter.length === topic.length;
}

describe('the Mosquitto ACL file', () => {
  const acl = mosquittoAclFile();
  const who = (username: string): BrokerIdentity => (username === 'kedge-cloud' ? { role: 'cloud' } : { role: 'node', node: username });
  const cases = ['kedge-cloud', 'edge-1', 'edge-2'].flatMap((username) =>
    ['edge-1', 'edge-2'].flatMap((node) => ['down', 'up', 'presence', 'stream-down', 'stream-up'].map((channel) => [username, `kedge/v1/${node}/${channel}`] as const)),
  );

  it.each([...cases, ['edge-1', 'other/topic'] as const, ['kedge-cloud', 'other/topic'] as const])('%s on %s: as acl.ts says', (username, topic) => {
    expect(grants(acl, username, topic, 'write')).toBe(mayPublish(who(username), topic));
    expect(grants(acl, username, topic, 'read')).toBe(maySubscribe(who(username), topic));
  });

  it('grants nothing before the first user line (anonymous clients)', () => {
    const beforeUsers = acl.slice(0, acl.indexOf('\nuser '));
    expect(beforeUsers.split('\n').filter((line) => line.startsWith('topic '))).toEqual([]);
  });

  it('uses one set of pattern lines for every node', () => {
    expect(acl.split('\n').filter((line) => line.startsWith('pattern '))).toEqual([
      'pattern read kedge/v1/%u/down',
      'pattern write kedge/v1/%u/up',
      'pattern write kedge/v1/%u/presence',
      'pattern read kedge/v1/%u/stream-down',
      'pattern write kedge/v1/%u/stream-up',
    ]);
  });
});

describe('mosquitto.conf', () => {
  const files = { passwordFile: '/etc/kedge/passwd', aclFile: '/etc/kedge/acl' };

  it('admits only the password file users, within the ACL, on one listener', () => {
    const lines = mosquittoConf({ port: 1883, ...files }).split('\n');
    expect(lines).toContain('listener 1883 127.0.0.1');
    expect(lines).toContain('allow_anonymous false');
    expect(lines).toContain('password_file /etc/kedge/passwd');
    expect(lines).toContain('acl_file /etc/kedge/acl');
    expect(lines.some((l) => l.startsWith('message_size_limit'))).toBe(false); // deprecated in 2.0: max_packet_size says it
    expect(lines.find((l) => l.startsWith('max_packet_size '))).toMatch(/^max_packet_size \d+$/);
    expect(lines).toContain('max_keepalive 600');
  });

  it('listens where it is told', () => expect(mosquittoConf({ port: 11883, host: '0.0.0.0', ...files })).toContain('listener 11883 0.0.0.0\n'));

  it.each([
    ['port 0', { port: 0, ...files }, /port 0/],
    ['a relative path', { port: 1883, passwordFile: 'passwd', aclFile: '/etc/kedge/acl' }, /absolute path/],
    ['a path with a space', { port: 1883, passwordFile: '/etc/my kedge/passwd', aclFile: '/etc/kedge/acl' }, /absolute path/],
    ['an empty host', { port: 1883, host: '', ...files }, /address/],
  ])('refuses %s', (_what, listener, message) => expect(() => mosquittoConf(listener)).toThrow(message));
});
