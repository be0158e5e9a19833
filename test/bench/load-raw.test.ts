import { describe, expect, it } from "vitest";
// @ts-expect-error: plain JavaScript without declarations (started with plain `node` by the bench).
import { parseResponse } from "../../bench/load-raw.mjs";

const head = (lines: string[]) => Buffer.from(`HTTP/1.1 200 OK\r\n${lines.join("\r\n")}\r\n\r\n`);

describe("the raw load generator's response framing", () => {
  it("ends a Content-Length body at its length and leaves what follows for the next answer", () => {
    const buf = Buffer.concat([
      head(["Content-Length: 5", "Content-Type: application/json"]),
      Buffer.from("[1,2]HTTP/1.1"),
    ]);
    const res = parseResponse(buf);
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe("[1,2]");
    expect(buf.subarray(res.end).toString()).toBe("HTTP/1.1");
  });

  it("waits for a body that is not whole yet, and for the end of the head", () => {
    expect(
      parseResponse(Buffer.concat([head(["content-length: 10"]), Buffer.from("12345")])),
    ).toBeUndefined();
    expect(parseResponse(Buffer.from("HTTP/1.1 200 OK\r\nContent-Le"))).toBeUndefined();
  });

  it("joins a chunked body's chunks and ends after the last chunk", () => {
    const chunked = Buffer.concat([
      head(["Transfer-Encoding: chunked"]),
      Buffer.from('3\r\n{"a\r\nb\r\n":"bcdefg"}\r\n0\r\n\r\nnext'),
    ]);
    const res = parseResponse(chunked);
    expect(JSON.parse(res.body.toString())).toEqual({ a: "bcdefg" });
    expect(chunked.subarray(res.end).toString()).toBe("next");
    expect(parseResponse(chunked.subarray(0, chunked.length - 9))).toBeUndefined();
  });

  it("reads the status code and refuses an answer with no framing", () => {
    expect(parseResponse(Buffer.from("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")).status).toBe(
      404,
    );
    expect(() => parseResponse(head(["Connection: close"]))).toThrow(/no framing/);
  });
});
