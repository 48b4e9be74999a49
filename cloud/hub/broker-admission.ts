import type { AuthenticateError, Client, ConnectPacket } from 'aedes';
import type { Authenticate, RefusalReason } from './broker.js';
import { identify, ownClientId, ownsClientId, topicRights, type BrokerIdentity, type TopicRights } from './acl.js';
import type { GuardedConnection } from './connection-guard.js';

/** CONNACK return codes of MQTT 3.1.1. */
const IDENTIFIER_REJECTED = 2;
const UNAVAILABLE = 3;
const BAD_CREDENTIALS = 4;

export interface AdmissionDeps {
  authenticate: Authenticate;
  /** The longest keepalive a client may ask for, in seconds (0, none, is refused too). */
  maxKeepaliveSeconds: number;
  /** Refuse nodes while no cloud client listens to every node's up topic (BrokerOptions.nodesWaitForCloud). */
  waitForCloud: boolean;
  /** Whether nodes are admitted now (BrokerOptions.nodesAdmitted$); the cloud hub always is. */
  nodesAdmitted(): boolean;
  refuse(reason: RefusalReason, message: string, details: Record<string, unknown>): void;
  /** A connection is admitted as `who`, before its CONNACK goes out. */
  admitted(client: Client, who: BrokerIdentity): void;
}

type Done = (error: AuthenticateError | null, success: boolean | null) => void;

/**
 * Who each broker connection is, decided at CONNECT: a bounded keepalive, a good credential,
 * then the client id of that credential. A refusal is a CONNACK return code, counted and
 * logged, given before aedes registers the client: a refused client id kicks nobody and
 * leaves no entry behind. Also knows the node connections, and the cloud clients listening.
 */
export class Admission {
  /** Who each admitted connection is, and its topic rights (worked out once, at admission). */
  private readonly grants = new WeakMap<Client, { who: BrokerIdentity; rights: TopicRights }>();
  private readonly keepalives = new WeakMap<Client, number>();
  /** Node connections from admission until their socket closes. */
  readonly nodes = new Set<Client>();
  /** Cloud clients subscribed to every node's up topic. */
  readonly listening = new Set<Client>();

  constructor(private readonly deps: AdmissionDeps) {}

  identityOf(client: Client | null): BrokerIdentity | undefined {
    return client ? this.grants.get(client)?.who : undefined;
  }

  /** What an admitted connection may publish and subscribe to; undefined for any other. */
  rightsOf(client: Client | null): TopicRights | undefined {
    return client ? this.grants.get(client)?.rights : undefined;
  }

  readonly preConnect = (client: Client, packet: ConnectPacket, done: (error: Error | null, success: boolean) => void): void => {
    this.keepalives.set(client, packet.keepalive ?? 0);
    done(null, true);
  };

  readonly authenticate = (client: Client, username: Readonly<string> | undefined, password: Readonly<Buffer> | undefined, done: Done): void => {
    const peer = peerOf(client);
    const keepalive = this.keepalives.get(client) ?? 0;
    const max = this.deps.maxKeepaliveSeconds;
    if (keepalive === 0 || keepalive > max) {
      // As Mosquitto's max_keepalive does for MQTT 3.1.1: a client that would never be timed out is not admitted.
      this.deps.refuse('keepalive', `keepalive ${keepalive} s is not from 1 to ${max} s`, { clientId: client.id, username, peer });
      return done(refusal(`keepalive must be from 1 to ${max} s`, IDENTIFIER_REJECTED), false);
    }
    Promise.resolve()
      .then(() => this.deps.authenticate(username ?? '', password?.toString('utf8') ?? '', { address: peer }))
      .then((verdict) => {
        const who = identify(username, verdict);
        if (!who) {
          this.deps.refuse('bad-credentials', 'bad user name or password', { clientId: client.id, username, peer });
          return done(refusal('bad user name or password', BAD_CREDENTIALS), false);
        }
        if (!ownsClientId(who, client.id)) {
          const message = `client id "${client.id}" does not belong to ${who.role === 'cloud' ? 'the cloud' : `node ${who.node}`}, which connects as ${ownClientId(who)}`;
          this.deps.refuse('client-id', message, { clientId: client.id, username, peer });
          return done(refusal(message, IDENTIFIER_REJECTED), false);
        }
        if (who.role === 'node' && !this.deps.nodesAdmitted()) {
          // This cloud's hub does not serve nodes now (another cloud's does): the node tries its next broker.
          this.deps.refuse('nodes-not-admitted', 'this cloud does not admit nodes now', { clientId: client.id, username, peer });
          return done(refusal('this cloud does not admit nodes now', UNAVAILABLE), false);
        }
        if (this.deps.waitForCloud && who.role === 'node' && this.listening.size === 0) {
          // The node tries again; its hello then reaches a hub that hears it.
          this.deps.refuse('no-hub-yet', 'no cloud hub is listening yet', { clientId: client.id, username, peer });
          return done(refusal('no cloud hub is listening yet', UNAVAILABLE), false);
        }
        this.admit(client, who);
        done(null, true);
      })
      .catch((err: unknown) => {
        // As kube's authenticators: an error is no admission (CONNACK 4, as a bad credential), and the client tries again.
        const message = `authentication failed: ${err instanceof Error ? err.message : String(err)}`;
        this.deps.refuse('auth-error', message, { clientId: client.id, username, peer });
        done(refusal(message, BAD_CREDENTIALS), false);
      });
  };

  /** From here, not from clientReady: a revocation may come before the CONNACK is out. */
  private admit(client: Client, who: BrokerIdentity): void {
    this.grants.set(client, { who, rights: topicRights(who) });
    if (who.role === 'node') {
      this.nodes.add(client);
      // On the socket, not on clientDisconnect: a client that fails before aedes registers it has none.
      client.conn.once('close', () => this.nodes.delete(client));
    }
    this.deps.admitted(client, who);
  }
}

function refusal(message: string, returnCode: number): AuthenticateError {
  return Object.assign(new Error(message), { returnCode }) as AuthenticateError;
}

/** The client's address, from the guarded connection under it. */
export function peerOf(client: Client | null): string | undefined {
  return (client?.conn as Partial<GuardedConnection> | undefined)?.remoteAddress;
}
