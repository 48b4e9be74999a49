import type { Observable } from 'rxjs';
import type { PublishOrder } from './publish-lanes.js';

/** Whether a transport has a session with its broker, and since when (epoch ms on its Clock). */
export interface Connectivity {
  connected: boolean;
  since: number;
}

/** A message on a topic this client subscribed to. */
export interface TransportMessage {
  topic: string;
  payload: Buffer;
  /** Came from the broker's retained store (a new subscription's first look), not as it was published. */
  retained: boolean;
}

/** A retained message: the broker keeps the newest one per topic and hands it to every later subscriber. */
export interface RetainedMessage {
  topic: string;
  payload: Buffer;
}

/** Who a client connects as: the broker admits the credential and lets it use only its own client id and topics. */
export interface TransportIdentity {
  clientId: string;
  username: string;
  password: string;
}

/** How a client keeps its session alive and how it tries again once a session is lost. */
export interface ReconnectTiming {
  /** How often the client pings an idle session; the broker drops it after 1.5 times as long without a word. */
  keepaliveMs: number;
  /** Reconnect backoff: the first retry after about `reconnectMinMs`, doubling up to `reconnectMaxMs`. */
  reconnectMinMs: number;
  reconnectMaxMs: number;
  /** The jitter of the reconnect backoff (roots pass Math.random; tests a fixed one). */
  random: () => number;
}

/** How a composition root makes a transport for an identity (an MqttTransport unless it is given another). */
export type TransportFactory = (identity: TransportIdentity) => Transport;

/** What the client asks of every session with the broker. Sessions are clean: nothing outlives one. */
export interface SessionSpec {
  /** Subscribed (QoS 1) at the start of every session, before `onSession`. */
  subscriptions: readonly string[];
  /** Retained by the broker on this client's topic if the session ends without close() (the last will). */
  will?: RetainedMessage;
  /**
   * Runs once per session after subscribing and before the transport counts as connected
   * (presence, hello). A rejection ends the session; the transport connects again later.
   */
  onSession?(session: SessionOps): Promise<void>;
}

/** What `onSession` may do on the session being set up. */
export interface SessionOps {
  /** As Transport.publish, on this session. */
  publish(topic: string, payload: Buffer, order?: PublishOrder): Promise<void>;
  /** Publishes QoS 1 and retained; resolves once the broker has it. */
  retain(message: RetainedMessage): Promise<void>;
}

/**
 * A client of the sync protocol's broker: one session at a time, re-established by itself
 * with backoff on the Clock it was given (jitter from the random it was given). Nothing is
 * queued across sessions; the protocol above re-sends what matters.
 */
export interface Transport {
  /** Starts connecting; every session follows `spec`. Called once. */
  start(spec: SessionSpec): void;
  /** The current session state; starts disconnected. Emits on every change, and completes on close. */
  readonly connectivity$: Observable<Connectivity>;
  readonly connectivity: Connectivity;
  /** Messages on the subscribed topics, in the order the broker delivered them. Completes on close. */
  readonly inbound$: Observable<TransportMessage>;
  /** When anything last came from the broker (a message, an ack, a ping's answer); undefined before the first. */
  readonly lastHeard: number | undefined;
  /**
   * Publishes QoS 1 on the current session; resolves once the broker has acknowledged it.
   * Rejects when there is no session, or when the session ends before the acknowledgement
   * (the caller sends again later). Allowed while `onSession` runs. `order` says which lane it
   * takes (control ahead of bulk, publish-lanes.ts); a transport without a socket may ignore it.
   * A bulk publish rejects at once when the transport holds too much bulk already.
   */
  publish(topic: string, payload: Buffer, order?: PublishOrder): Promise<void>;
  /** As publish, retained (the broker allows it only for presence). */
  retain(message: RetainedMessage): Promise<void>;
  /**
   * Ends the session and stops reconnecting; when connected, publishes `farewell` retained
   * first, at most once and unacknowledged. The broker may then publish the will as well (after
   * the farewell, or instead of a farewell that was lost), so the two should say the same. Idempotent.
   */
  close(farewell?: RetainedMessage): Promise<void>;
}
