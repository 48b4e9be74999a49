/** Where the log line of the put behind a live entry's current value is stored. */
export interface LineLocation {
  file: number;
  offset: number;
  length: number;
}

/**
 * For every live key, the file and byte range of the put line behind its value; and the
 * numbered files those ranges point into. A snapshot copies these lines from the files it
 * replaces instead of serialising every value again, so its cost is mostly a file copy.
 */
export class LineIndex {
  private readonly lines = new Map<string, LineLocation>();
  private readonly paths = new Map<number, string>();
  private nextFile = 0;

  addFile(path: string): number {
    this.paths.set(this.nextFile, path);
    return this.nextFile++;
  }

  path(file: number): string {
    const path = this.paths.get(file);
    if (path === undefined) throw new Error(`no file ${file} in the line index`);
    return path;
  }

  dropFile(file: number): void {
    this.paths.delete(file);
  }

  put(key: string, location: LineLocation): void {
    this.lines.set(key, location);
  }

  delete(key: string): void {
    this.lines.delete(key);
  }

  /** Every live key's line, as of now (locations are never changed in place). */
  capture(): [string, LineLocation][] {
    return [...this.lines];
  }

  /** Points each captured key that has not been written since at its copy in `file`. */
  moveTo(file: number, captured: readonly [string, LineLocation][], offsets: readonly number[]): void {
    for (const [i, [key, old]] of captured.entries()) {
      if (this.lines.get(key) === old) this.lines.set(key, { file, offset: offsets[i]!, length: old.length });
    }
  }
}
