/** CONNACK return codes 4 (bad user name or password) and 5 (not authorized). */
const BAD_CREDENTIALS = 4;
const NOT_AUTHORIZED = 5;

/** What an MqttTransport logs when the broker turns it away; a root may say there what its operator can do. */
export interface RefusalMessages {
  /** The broker refuses the credential (CONNACK 4 or 5): logged once, then retried slowly. */
  credential: string;
  /** TLS refused the broker's certificate: a CA other than the one given as `ca` signed it. */
  otherCa: string;
}

export const plainRefusalMessages: RefusalMessages = {
  credential: "the broker refuses this client's credential: retrying slowly",
  otherCa: "the broker's certificate is not signed by the CA this client trusts; retrying",
};

/** Whether mqtt.js failed because the broker refused the credential. */
export function credentialRefused(err: Error & { code?: unknown }): boolean {
  return err.code === BAD_CREDENTIALS || err.code === NOT_AUTHORIZED;
}

/** A refused credential is retried at this many times the longest reconnect wait (30 s by default). */
const CREDENTIAL_RETRY_FACTOR = 30;

/** How long a client waits before trying a refused credential again: an operator has to act first. */
export function credentialRetryMs(reconnectMaxMs: number): number {
  return reconnectMaxMs * CREDENTIAL_RETRY_FACTOR;
}
