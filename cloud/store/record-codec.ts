import { crc32 } from 'node:zlib';
import { KedgeError } from '../../shared/errors.js';
import type { ByteBuilder } from './byte-builder.js';
import type { WriteRecord } from './kv-state.js';

/*
 * How logs and snapshots store write records: one per line,
 * `<CRC-32 of the JSON, 8 hex digits> <JSON>\n`. A crash can leave a torn last line
 * (partly written, or zero-filled); the checksum finds it.
 */

/** A value's JSON; refuses what JSON cannot hold, before the store applies the write. */
export function valueJson(value: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (err) {
    throw new KedgeError('Invalid', `value is not JSON: ${(err as Error).message}`);
  }
  if (json === undefined) throw new KedgeError('Invalid', 'value is not JSON');
  return json;
}

/** A record's JSON, reusing its value's JSON when the caller has it already. */
export function recordJson(record: WriteRecord, value?: string): string {
  if (record.op === 'delete' || value === undefined) return JSON.stringify(record);
  return `{"op":"put","key":${JSON.stringify(record.key)},"value":${value},"revision":${record.revision},"createRevision":${record.createRevision}}`;
}

/** Appends one record line to `out`; `json` is the record, already serialised. */
export function encodeRecord(out: ByteBuilder, json: string): void {
  const start = out.length;
  out.write('00000000 ');
  out.write(json);
  out.overwrite(start, crc32(out.bytes.subarray(start + 9)).toString(16).padStart(8, '0'));
  out.write('\n');
}

/** Whether `line` (with its newline) is an intact record line: its checksum matches. */
export function isIntactLine(line: Buffer): boolean {
  return line.length > 10 && line[line.length - 1] === 10 && checksumMatches(line, 0, line.length - 1);
}

function checksumMatches(buf: Buffer, start: number, end: number): boolean {
  if (end - start < 10 || buf[start + 8] !== 0x20) return false;
  return parseInt(buf.toString('latin1', start, start + 8), 16) === crc32(buf.subarray(start + 9, end));
}

function decodeLine(buf: Buffer, start: number, end: number): WriteRecord | undefined {
  if (!checksumMatches(buf, start, end)) return undefined;
  try {
    return JSON.parse(buf.toString('utf8', start + 9, end)) as WriteRecord;
  } catch {
    return undefined;
  }
}

/**
 * Decodes record lines from `from` on; record i spans bytes offsets[i] to offsets[i + 1].
 * A bad line followed only by garbage is a torn tail: decoding stops there. A bad line
 * followed by a good one is corruption, not a crash: fail.
 */
export function decodeRecords(buf: Buffer, from: number, source: string): { records: WriteRecord[]; offsets: number[] } {
  const records: WriteRecord[] = [];
  const offsets = [from];
  let pos = from;
  while (pos < buf.length) {
    const end = buf.indexOf(10, pos);
    const record = end < 0 ? undefined : decodeLine(buf, pos, end);
    if (!record) {
      if (hasGoodLineAfter(buf, end)) throw new KedgeError('Internal', `corrupt record in ${source} at byte ${pos}`);
      break;
    }
    records.push(record);
    pos = end + 1;
    offsets.push(pos);
  }
  return { records, offsets };
}

function hasGoodLineAfter(buf: Buffer, from: number): boolean {
  for (let pos = from + 1; from >= 0 && pos < buf.length; ) {
    const end = buf.indexOf(10, pos);
    if (end < 0) return false;
    if (decodeLine(buf, pos, end)) return true;
    pos = end + 1;
  }
  return false;
}
