import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { KedgeError } from '../../shared/errors.js';
import { KvState, type WriteRecord } from './kv-state.js';
import { readSnapshot } from './snapshot.js';
import { listLogs, LogFile, readLog, syncDir } from './wal.js';

export interface Recovered {
  state: KvState;
  /** The log new writes go to: the newest one, with any torn tail cut off. */
  log: LogFile;
  /** Older logs, still needed until the next snapshot covers them. */
  olderLogs: string[];
  /** Bytes in all logs, the measure that decides when to snapshot. */
  logBytes: number;
  snapshotBytes: number;
}

/** Rebuilds the state in `dir`: the snapshot, then every logged write after it. */
export async function recover(dir: string): Promise<Recovered> {
  await mkdir(dir, { recursive: true });
  const state = new KvState();
  const snapshot = await readSnapshot(dir);
  if (snapshot) {
    for (const { key, value, createRevision, modRevision } of snapshot.entries) {
      state.apply({ op: 'put', key, value, createRevision, revision: modRevision });
    }
    state.revision = snapshot.revision;
  }
  const paths = (await listLogs(dir)).map((name) => join(dir, name));
  let logBytes = 0;
  let tail = { validBytes: 0, totalBytes: 0 };
  for (const [i, path] of paths.entries()) {
    const contents = await readLog(path);
    if (contents.validBytes < contents.totalBytes && i < paths.length - 1) {
      throw new KedgeError('Internal', `log ${path} is cut short but is not the newest log`);
    }
    replay(state, contents.records, path);
    logBytes += contents.validBytes;
    tail = contents;
  }
  const newest = paths.at(-1);
  let log: LogFile;
  if (newest) {
    log = await LogFile.reopen(newest, tail.validBytes, tail.totalBytes);
  } else {
    log = await LogFile.create(dir, state.revision + 1);
    await syncDir(dir);
  }
  return { state, log, olderLogs: paths.slice(0, -1), logBytes, snapshotBytes: snapshot?.bytes ?? 0 };
}

function replay(state: KvState, records: WriteRecord[], path: string): void {
  for (const record of records) {
    if (record.revision <= state.revision) continue; // already in the snapshot
    if (record.revision !== state.revision + 1) {
      throw new KedgeError('Internal', `log ${path} jumps from revision ${state.revision} to ${record.revision}`);
    }
    state.apply(record);
  }
}
