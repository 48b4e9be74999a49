import { join } from 'node:path';
import { KedgeError } from '../../shared/errors.js';
import { makePrivateDir, syncDir } from '../../shared/private-file.js';
import { KvState, type WriteRecord } from './kv-state.js';
import { LineIndex } from './line-index.js';
import { readSnapshot, SNAPSHOT_FILE } from './snapshot.js';
import { listLogs, LogFile, readLog } from './wal.js';

export interface Recovered {
  state: KvState;
  index: LineIndex;
  /** The log new writes go to: the newest one, with any torn tail cut off; and its number in `index`. */
  log: LogFile;
  logFile: number;
  /** Older logs and the snapshot (numbers in `index`): the next snapshot replaces them. */
  replaceable: number[];
  /** Bytes in all logs, the measure that decides when to snapshot. */
  logBytes: number;
  snapshotBytes: number;
}

/** Rebuilds the state in `dir`: the snapshot, then every logged write after it. */
export async function recover(dir: string): Promise<Recovered> {
  await makePrivateDir(dir);
  const state = new KvState();
  const index = new LineIndex();
  const replaceable: number[] = [];
  const snapshot = await readSnapshot(dir);
  if (snapshot) {
    const file = index.addFile(join(dir, SNAPSHOT_FILE));
    replaceable.push(file);
    for (const [i, record] of snapshot.records.entries()) {
      state.apply(record);
      indexLine(index, file, record, snapshot.offsets, i);
    }
    state.revision = snapshot.revision;
  }
  const paths = (await listLogs(dir)).map((name) => join(dir, name));
  let logBytes = 0;
  let tail = { validBytes: 0, totalBytes: 0 };
  for (const [i, path] of paths.entries()) {
    const { records, offsets, totalBytes } = await readLog(path);
    const validBytes = offsets.at(-1)!;
    if (validBytes < totalBytes && i < paths.length - 1) throw new KedgeError('Internal', `log ${path} is cut short but is not the newest log`);
    const file = index.addFile(path);
    replaceable.push(file);
    replay(state, index, file, records, offsets);
    logBytes += validBytes;
    tail = { validBytes, totalBytes };
  }
  const newest = paths.at(-1);
  let log: LogFile;
  if (newest) {
    log = await LogFile.reopen(newest, tail.validBytes, tail.totalBytes);
  } else {
    log = await LogFile.create(dir, state.revision + 1);
    await syncDir(dir);
    replaceable.push(index.addFile(log.path));
  }
  const logFile = replaceable.pop()!;
  return { state, index, log, logFile, replaceable, logBytes, snapshotBytes: snapshot ? snapshot.offsets.at(-1)! : 0 };
}

/** Applies the logged records that come after the state's revision. */
function replay(state: KvState, index: LineIndex, file: number, records: WriteRecord[], offsets: number[]): void {
  for (const [i, record] of records.entries()) {
    if (record.revision <= state.revision) continue; // already in the snapshot
    if (record.revision !== state.revision + 1) {
      throw new KedgeError('Internal', `${index.path(file)} jumps from revision ${state.revision} to ${record.revision}`);
    }
    state.apply(record);
    indexLine(index, file, record, offsets, i);
  }
}

function indexLine(index: LineIndex, file: number, record: WriteRecord, offsets: number[], i: number): void {
  if (record.op === 'put') index.put(record.key, { file, offset: offsets[i]!, length: offsets[i + 1]! - offsets[i]! });
  else index.delete(record.key);
}
