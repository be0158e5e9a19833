/**
 * The staging directory of file transfers, `<DATA_DIR>/transfers/<jobId>.<in|out>`: the API
 * stages an upload or import there and the worker reads it; the worker stages a download or
 * export there and the API answers with it. Both processes share DATA_DIR (as they share the
 * database), so bytes never travel through the job row or Redis.
 */
import { mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";

const JOB_ID = /^job_[A-Za-z0-9]{1,64}$/;

export type TransferSide = "in" | "out";

export class TransferDir {
  readonly root: string;

  /**
   * `maxBytes`: the largest file or archive a transfer may move (FILE_TRANSFER_MAX_BYTES);
   * `waitMs`: how long a request waits for a worker to run its transfer (FILE_TRANSFER_WAIT_MS)
   * before it answers 503 naming the job, which still runs once.
   */
  constructor(
    root: string,
    readonly maxBytes: number,
    readonly waitMs = 300_000,
  ) {
    this.root = resolve(root);
  }

  async write(jobId: string, side: TransferSide, data: Buffer): Promise<void> {
    await mkdir(this.root, { recursive: true, mode: 0o700 });
    await writeFile(this.path(jobId, side), data, { mode: 0o600 });
  }

  read(jobId: string, side: TransferSide): Promise<Buffer> {
    return readFile(this.path(jobId, side));
  }

  async remove(jobId: string): Promise<void> {
    await Promise.all((["in", "out"] as const).map((side) => rm(this.path(jobId, side), { force: true })));
  }

  /** Removes files older than `ageMs` (their API request ended without cleaning up, e.g. a crash). */
  async sweep(ageMs: number): Promise<number> {
    const names = await readdir(this.root).catch(() => [] as string[]);
    let removed = 0;
    for (const name of names) {
      const file = join(this.root, name);
      const st = await stat(file).catch(() => undefined);
      if (st && Date.now() - st.mtimeMs > ageMs) {
        await rm(file, { force: true });
        removed++;
      }
    }
    return removed;
  }

  private path(jobId: string, side: TransferSide): string {
    if (!JOB_ID.test(jobId)) throw new Error(`bad job id ${JSON.stringify(jobId)}`);
    return join(this.root, `${jobId}.${side}`);
  }
}
