/**
 * How big and how deep an object may be: one set of limits for the API, which stores nothing
 * beyond them, and for the sync, which carries everything within them to the edges (the
 * envelope's own level and bytes come on top). An object the API accepts is one an edge takes.
 */

/** The deepest an object may nest, its root object being level 1 (arrays count as levels). */
export const MAX_OBJECT_NESTING = 64;
/** The envelope around a message's body is one level. */
const ENVELOPE_NESTING = 1;
/** Payloads deeper than this are dropped before parsing. */
export const MAX_PAYLOAD_NESTING = MAX_OBJECT_NESTING + ENVELOPE_NESTING;

/** Payloads larger than this are dropped before parsing. */
export const MAX_PAYLOAD_BYTES = 1024 * 1024;
/** Room for the envelope (ids, the object's ref) and what the server adds to a stored object (resourceVersion, deletion marks). */
const ENVELOPE_BYTES = 16 * 1024;
/** The largest object, as JSON, that the API stores. */
export const MAX_OBJECT_BYTES = MAX_PAYLOAD_BYTES - ENVELOPE_BYTES;
