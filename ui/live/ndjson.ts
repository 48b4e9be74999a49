/** Splits a stream of text chunks into lines: a line may arrive in pieces, or many in one chunk. */
export class LineSplitter {
  private rest = '';

  /** The complete, non-empty lines so far; an unfinished last line waits for the next chunk. */
  push(chunk: string): string[] {
    const parts = (this.rest + chunk).split('\n');
    this.rest = parts.pop()!;
    return parts.map((l) => l.trim()).filter((l) => l !== '');
  }
}
