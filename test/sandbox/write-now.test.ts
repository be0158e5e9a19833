import { spawn } from "node:child_process";
import type { Writable } from "node:stream";
import { describe, expect, it } from "vitest";

// The executor writes its lines and frames straight to the descriptor when its stream has nothing
// queued (write-now.mjs); what the descriptor does not take goes through the stream, and so does
// everything after it until the stream has drained, so the bytes arrive in the order written.
const writeNowPath = "../../src/sandbox/executor/write-now.mjs";
const { writeNow } = (await import(writeNowPath)) as {
  writeNow: (stream: Writable, data: string | Buffer) => void;
};

/** A reader that starts reading only after `delayS`: until then the buffer of its stdin fills up. */
function slowReader(delayS: number) {
  const child = spawn("sh", ["-c", `sleep ${delayS}; cat`], { stdio: ["pipe", "pipe", "ignore"] });
  const out: Buffer[] = [];
  child.stdout.on("data", (b: Buffer) => out.push(b));
  const done = new Promise<Buffer>((resolve) => child.once("close", () => resolve(Buffer.concat(out))));
  const stdin = child.stdin;
  let streamWrites = 0;
  const write = stdin.write.bind(stdin);
  stdin.write = ((...args: Parameters<typeof write>) => {
    streamWrites++;
    return write(...args);
  }) as typeof stdin.write;
  return { stdin, done, streamWrites: () => streamWrites };
}

describe("executor: writeNow", () => {
  it("writes to the descriptor itself while the stream has nothing queued", async () => {
    const r = slowReader(0);
    writeNow(r.stdin, "one\n");
    writeNow(r.stdin, Buffer.from("two\n"));
    expect(r.streamWrites()).toBe(0);
    r.stdin.end();
    expect((await r.done).toString()).toBe("one\ntwo\n");
  });

  it("writes after what the stream still holds", async () => {
    const r = slowReader(0);
    r.stdin.cork();
    r.stdin.write("held\n");
    writeNow(r.stdin, "next\n");
    r.stdin.uncork();
    writeNow(r.stdin, "last\n");
    r.stdin.end();
    expect((await r.done).toString()).toBe("held\nnext\nlast\n");
  });

  it("keeps the order when the descriptor is full: the rest and what follows go through the stream", async () => {
    const r = slowReader(0.3);
    const chunks = ["a", "b", "c", "d"].map((c) => c.repeat(1_000_000));
    for (const chunk of chunks) writeNow(r.stdin, chunk);
    writeNow(r.stdin, Buffer.from("end"));
    // The socket buffer (child stdio is a socket pair) takes less than the first chunk.
    expect(r.streamWrites()).toBe(5);
    r.stdin.end();
    expect((await r.done).toString()).toBe(`${chunks.join("")}end`);
  });

  it("a partial write that ends inside a character: the rest goes from the next byte, nothing doubled or lost", async () => {
    // 3-byte characters after 0, 1 and 2 ASCII bytes: whatever the descriptor takes at once (a
    // socket buffer's worth), at least two of the three cut a character. The rest is bytes (the
    // string's encoding from the byte the descriptor stopped at), not the string from a character.
    for (const lead of ["", "x", "xy"]) {
      const r = slowReader(0.3);
      const text = `${lead}${"€".repeat(500_000)}`;
      writeNow(r.stdin, text);
      writeNow(r.stdin, "\nend");
      expect(r.streamWrites(), `lead ${lead.length}`).toBe(2);
      r.stdin.end();
      const got = await r.done;
      expect(got.length, `lead ${lead.length}`).toBe(Buffer.byteLength(text) + 4);
      expect(got.equals(Buffer.from(`${text}\nend`)), `lead ${lead.length}`).toBe(true);
    }
  });
});
