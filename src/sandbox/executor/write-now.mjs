// Writing a line or frame straight to a stream's descriptor. A net.Socket's write goes through
// the Writable machinery (a write request, callbacks and ticks: a few dozen functions per write,
// run cold by a session's young executor); when nothing is queued in the stream, one write(2) does
// the same. Whatever the descriptor does not take at once (a full pipe or socket buffer, an
// error) goes to the stream, which then holds the order: while it has anything queued, every
// later write goes through it too.
import { writeSync } from "node:fs";

/** Writes `data` (a string or Buffer) to `stream`, in order with the stream's own writes. */
export function writeNow(stream, data) {
  const fd = stream.writableLength === 0 && !stream.writableCorked ? stream._handle?.fd : undefined;
  let done = 0;
  if (typeof fd === "number" && fd >= 0) {
    try {
      done = writeSync(fd, data);
    } catch {
      // EAGAIN (full), EPIPE (gone): the stream writes it, or reports the error as it would have.
    }
  }
  if (done === 0) stream.write(data);
  else if (done < byteLength(data)) stream.write(Buffer.from(data).subarray(done));
}

const byteLength = (data) => (typeof data === "string" ? Buffer.byteLength(data) : data.length);
