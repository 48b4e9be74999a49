import type { RefusalMessages } from '../../shared/mqtt-transport.js';

/** What an edge logs when the broker turns it away, with what its operator can do about it. */
export const edgeRefusalMessages: RefusalMessages = {
  credential:
    "the broker refuses this node's credential: retrying slowly (a joined node whose token was revoked or whose Node was deleted comes back by joining again with a new token)",
  otherCa:
    "the broker's certificate is not signed by the CA this node trusts (the cloud's, kept when it joined): the cloud there has another CA (started with another data dir?); retrying. Start the cloud with its own data dir, or join this one again with a token of its own",
};
