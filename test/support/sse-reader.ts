/**
 * Reads a live SSE response block by block (`fetch` body), so a test can wait for the next event
 * of a stream that does not end. Comments (`: …`) and `retry:` blocks are returned too.
 */
export interface SseBlock {
  event?: string;
  data?: string;
  retry?: number;
  comment?: string;
}

export class SseReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private buffer = "";

  constructor(res: Response) {
    if (!res.body) throw new Error("no body");
    this.reader = res.body.getReader();
  }

  /** The next block; throws when the stream ends or after `timeoutMs`. */
  async next(timeoutMs = 10_000): Promise<SseBlock> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const end = this.buffer.indexOf("\n\n");
      if (end >= 0) {
        const raw = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        return parseBlock(raw);
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no SSE block within ${timeoutMs} ms; buffered: ${this.buffer}`);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no SSE block within ${timeoutMs} ms`)), left);
      });
      const chunk = await Promise.race([this.reader.read(), timeout]).finally(() => clearTimeout(timer));
      if (chunk.done) throw new Error("the SSE stream ended");
      this.buffer += this.decoder.decode(chunk.value, { stream: true });
    }
  }

  /** The next block that is an event (skipping comments and `retry:`). */
  async nextEvent(timeoutMs = 10_000): Promise<{ event: string; data: unknown }> {
    for (;;) {
      const b = await this.next(timeoutMs);
      if (b.event !== undefined) return { event: b.event, data: JSON.parse(b.data ?? "null") };
    }
  }

  async close(): Promise<void> {
    await this.reader.cancel().catch(() => undefined);
  }
}

function parseBlock(raw: string): SseBlock {
  const out: SseBlock = {};
  for (const line of raw.split("\n")) {
    if (line.startsWith(":")) out.comment = line.slice(1).trim();
    else if (line.startsWith("event:")) out.event = line.slice(6).trim();
    else if (line.startsWith("data:"))
      out.data = (out.data === undefined ? "" : `${out.data}\n`) + line.slice(5).trim();
    else if (line.startsWith("retry:")) out.retry = Number(line.slice(6).trim());
  }
  return out;
}
