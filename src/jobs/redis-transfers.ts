/**
 * The transfer staging on Redis, shared by every API and worker host. One side of a job is a
 * list of chunks (`<prefix>:transfer:{<jobId>}:<side>`; the hash tag keeps both sides of a job in
 * one Redis Cluster slot), written in one MULTI (replacing an earlier attempt's bytes whole) with
 * a TTL, so bytes an API or worker left behind expire on their own. Chunks keep every command and
 * reply small next to the largest transfer (FILE_TRANSFER_MAX_BYTES).
 */
import type { Redis } from "ioredis";
import {
  checkTransferJobId,
  TransferMissingError,
  type TransferSide,
  type TransferStore,
} from "../service/files/transfer-store.js";

const CHUNK_BYTES = 1024 * 1024;
/** Chunks fetched per read round trip. */
const READ_BATCH = 8;

export interface RedisTransferOptions {
  prefix: string;
  maxBytes: number;
  waitMs?: number;
  /** How long staged bytes live (default: an hour, and at least twice the wait). */
  ttlMs?: number;
}

export class RedisTransferStore implements TransferStore {
  readonly maxBytes: number;
  readonly waitMs: number;
  private readonly ttlMs: number;

  constructor(
    private readonly redis: Redis,
    private readonly opts: RedisTransferOptions,
  ) {
    this.maxBytes = opts.maxBytes;
    this.waitMs = opts.waitMs ?? 300_000;
    this.ttlMs = opts.ttlMs ?? Math.max(3600_000, 2 * this.waitMs);
  }

  async write(jobId: string, side: TransferSide, data: Buffer): Promise<void> {
    const key = this.key(jobId, side);
    const tx = this.redis.multi().del(key);
    // An empty file is one empty chunk: a staged side is never an absent key.
    for (let at = 0; at === 0 || at < data.length; at += CHUNK_BYTES)
      tx.rpush(key, data.subarray(at, at + CHUNK_BYTES));
    tx.pexpire(key, this.ttlMs);
    const results = await tx.exec();
    const failed = results?.find(([err]) => err);
    if (!results || failed) throw failed?.[0] ?? new Error(`staging ${side} of ${jobId} was aborted`);
  }

  async read(jobId: string, side: TransferSide): Promise<Buffer> {
    const key = this.key(jobId, side);
    const n = await this.redis.llen(key);
    if (n === 0) throw new TransferMissingError(jobId, side);
    const chunks: Buffer[] = [];
    for (let at = 0; at < n; at += READ_BATCH) {
      const want = Math.min(n, at + READ_BATCH) - at;
      const got = await this.redis.lrangeBuffer(key, at, at + want - 1);
      // Expired or removed between two reads: never hand on part of the bytes.
      if (got.length !== want) throw new TransferMissingError(jobId, side);
      chunks.push(...got);
    }
    return Buffer.concat(chunks);
  }

  async remove(jobId: string): Promise<void> {
    await this.redis.del(this.key(jobId, "in"), this.key(jobId, "out"));
  }

  private key(jobId: string, side: TransferSide): string {
    return `${this.opts.prefix}:transfer:{${checkTransferJobId(jobId)}}:${side}`;
  }
}
