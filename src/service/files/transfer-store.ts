/**
 * Where the bytes of a file transfer wait between the API and the worker: the API stages an
 * upload or import (`in`) and the worker reads it; the worker stages a download or export
 * (`out`) and the API answers with it. The API and the worker may run on different hosts, so
 * the staging is a shared store (Redis, src/jobs/redis-transfers.ts), never a local disk; bytes
 * never travel through the job row. Staged bytes expire on their own (a request that died
 * mid-way leaves nothing behind for long).
 */
export type TransferSide = "in" | "out";

export interface TransferStore {
  /** The largest file or archive a transfer may move (FILE_TRANSFER_MAX_BYTES). */
  readonly maxBytes: number;
  /**
   * How long a request waits for a worker to run its transfer (FILE_TRANSFER_WAIT_MS) before it
   * answers 503 naming the job, which still runs once.
   */
  readonly waitMs: number;
  /** Stages `data` (replacing what a previous attempt staged). */
  write(jobId: string, side: TransferSide, data: Buffer): Promise<void>;
  /** The staged bytes; throws when nothing (or no longer anything) is staged. */
  read(jobId: string, side: TransferSide): Promise<Buffer>;
  /** Drops both sides. */
  remove(jobId: string): Promise<void>;
}

const JOB_ID = /^job_[A-Za-z0-9]{1,64}$/;

/** Refuses what is not a job id (the id becomes part of a storage key). */
export function checkTransferJobId(jobId: string): string {
  if (!JOB_ID.test(jobId)) throw new Error(`bad job id ${JSON.stringify(jobId)}`);
  return jobId;
}

/** Thrown by `read` when nothing is staged (expired, removed, or never written). */
export class TransferMissingError extends Error {
  constructor(jobId: string, side: TransferSide) {
    super(`no staged ${side === "in" ? "input" : "output"} for job ${jobId} (expired or removed)`);
    this.name = "TransferMissingError";
  }
}
