/**
 * Follows the MQTT byte stream of one connection packet by packet, without parsing bodies:
 * it reads each fixed header (type, remaining length) so the broker can refuse an oversized
 * packet before buffering it and count PUBLISH packets for the rate limit.
 */
export const PUBLISH = 3;

export interface FramedChunk {
  /** PUBLISH packets whose header was in this chunk. */
  publishes: number;
  /** The announced size of a packet over the limit (header included); the connection must go. */
  oversized?: number;
  /** A remaining length longer than four bytes: not MQTT. */
  malformed?: boolean;
  /** Where a PUBLISH starts that `mayPublish` refused: nothing from here on was read. */
  stoppedAt?: number;
}

export class PacketFramer {
  private state: 'type' | 'length' | 'body' = 'type';
  private type = 0;
  private length = 0;
  private lengthBytes = 0;
  private remaining = 0;
  /** Packets read to their last byte so far. */
  packetsRead = 0;

  constructor(private readonly maxPacketBytes: number) {}

  /** Reads `chunk` up to the first PUBLISH that `mayPublish` refuses (and from there again next time). */
  feed(chunk: Buffer, mayPublish: () => boolean = () => true): FramedChunk {
    let publishes = 0;
    for (let i = 0; i < chunk.length; ) {
      if (this.state === 'body') {
        const skip = Math.min(this.remaining, chunk.length - i);
        this.remaining -= skip;
        i += skip;
        if (this.remaining === 0) this.endPacket();
        continue;
      }
      if (this.state === 'type' && chunk[i]! >> 4 === PUBLISH && !mayPublish()) return { publishes, stoppedAt: i };
      const byte = chunk[i++]!;
      if (this.state === 'type') {
        this.type = byte >> 4;
        this.length = 0;
        this.lengthBytes = 0;
        this.state = 'length';
        continue;
      }
      this.length += (byte & 0x7f) * 128 ** this.lengthBytes++;
      if (byte & 0x80) {
        if (this.lengthBytes === 4) return { publishes, malformed: true };
        continue;
      }
      const size = 1 + this.lengthBytes + this.length;
      if (size > this.maxPacketBytes) return { publishes, oversized: size };
      if (this.type === PUBLISH) publishes++;
      this.remaining = this.length;
      if (this.length === 0) this.endPacket();
      else this.state = 'body';
    }
    return { publishes };
  }

  private endPacket(): void {
    this.state = 'type';
    this.packetsRead++;
  }
}
