import { createHash } from 'node:crypto';
import { deflateSync, constants } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { SPDY3_DICTIONARY } from '../../../cloud/apiserver/streams/spdy-dictionary.js';
import { decodeHeaderBlock, encodeHeaderBlock, HeaderZlib } from '../../../cloud/apiserver/streams/spdy-headers.js';
import {
  dataFrame, goAwayFrame, pingFrame, rstStreamFrame, SpdyFrameReader, synReplyFrame, synStreamFrame,
} from '../../../cloud/apiserver/streams/spdy-frames.js';

describe('SPDY/3 framing', () => {
  it('has the draft-3 dictionary byte for byte (1423 bytes, as moby/spdystream)', () => {
    expect(SPDY3_DICTIONARY.length).toBe(1423);
    expect(createHash('sha256').update(SPDY3_DICTIONARY).digest('hex')).toBe('51d27341373f923f3cd88e1eb7162aeaa3723d7585ff2399201dc06498407f02');
  });

  it('round-trips header blocks through one shared zlib context per direction', async () => {
    const client = new HeaderZlib();
    const server = new HeaderZlib();
    const blocks = [
      { streamtype: 'error', port: '80', requestid: '0' },
      { streamtype: 'data', port: '80', requestid: '0' },
      { streamtype: 'error', port: '8080', requestid: '1' },
    ];
    for (const headers of blocks) expect(await server.decompress(await client.compress(headers))).toEqual(headers);
    expect(await client.decompress(await server.compress({}))).toEqual({});
    // Blocks are compressed against what came before: the second alone does not inflate in a fresh context.
    const fresh = new HeaderZlib();
    const first = await client.compress({ port: '80' });
    await expect(fresh.decompress(await client.compress({ port: '80' }))).rejects.toThrow();
    expect(first.length).toBeGreaterThan(0);
    fresh.close();
    client.close();
    server.close();
  });

  it('reads a header block compressed by another zlib primed with the dictionary', async () => {
    const block = encodeHeaderBlock({ streamtype: 'data', port: '5432', requestid: '7' });
    const compressed = deflateSync(block, { dictionary: SPDY3_DICTIONARY, finishFlush: constants.Z_SYNC_FLUSH });
    const zlib = new HeaderZlib();
    expect(await zlib.decompress(compressed)).toEqual({ streamtype: 'data', port: '5432', requestid: '7' });
    zlib.close();
  });

  it('encodes name/value blocks with 32-bit lengths', () => {
    const block = encodeHeaderBlock({ port: '80' });
    expect(block.toString('hex')).toBe('00000001' + '00000004' + Buffer.from('port').toString('hex') + '00000002' + Buffer.from('80').toString('hex'));
    expect(decodeHeaderBlock(block)).toEqual({ port: '80' });
  });

  it('cuts a byte stream into frames, across arbitrary splits', () => {
    const bytes = Buffer.concat([
      synStreamFrame(1, Buffer.from('hb1'), false), synReplyFrame(3, Buffer.from('hb2'), true), dataFrame(5, Buffer.from('payload'), true),
      rstStreamFrame(7, 5), pingFrame(9), goAwayFrame(11, 0),
    ]);
    const reader = new SpdyFrameReader(1024);
    const frames = [];
    for (let i = 0; i < bytes.length; i += 2) frames.push(...reader.push(bytes.subarray(i, i + 2)));
    expect(frames).toEqual([
      { type: 'syn_stream', streamId: 1, fin: false, headerBlock: Buffer.from('hb1') },
      { type: 'syn_reply', streamId: 3, fin: true, headerBlock: Buffer.from('hb2') },
      { type: 'data', streamId: 5, fin: true, data: Buffer.from('payload') },
      { type: 'rst_stream', streamId: 7, status: 5 },
      { type: 'ping', id: 9 },
      { type: 'goaway', lastGoodStreamId: 11, status: 0 },
    ]);
  });

  it('refuses a frame longer than its bound', () => {
    const reader = new SpdyFrameReader(4);
    expect(() => reader.push(dataFrame(1, Buffer.alloc(5), false))).toThrow(/exceeds 4/);
  });
});
