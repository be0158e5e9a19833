/** A line longer than the splitter's bound: the peer is broken or hostile. */
export class LineTooLongError extends Error {
  constructor(limit: number) {
    super(`executor sent a line longer than ${limit} bytes`);
    this.name = "LineTooLongError";
  }
}

/**
 * Splits a byte stream into newline-terminated lines without ever holding more than
 * `maxLineBytes` of an unfinished line: executor replies are untrusted input.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;

  constructor(
    private readonly maxLineBytes: number,
    private readonly onLine: (line: string) => void,
  ) {}

  /** Feeds a chunk; throws LineTooLongError past the bound. */
  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      const piece = chunk.subarray(start, nl === -1 ? chunk.length : nl);
      this.size += piece.length;
      if (this.size > this.maxLineBytes) throw new LineTooLongError(this.maxLineBytes);
      if (nl === -1) {
        if (piece.length > 0) this.parts.push(piece);
        return;
      }
      const line = this.parts.length === 0 ? piece : Buffer.concat([...this.parts, piece]);
      this.parts = [];
      this.size = 0;
      start = nl + 1;
      this.onLine(line.toString("utf8"));
    }
  }
}
