/** The transfer staging in memory, for API-shape tests without Redis (one process). */
import {
  checkTransferJobId,
  TransferMissingError,
  type TransferSide,
  type TransferStore,
} from "../../src/service/files/transfer-store.js";

export class MemoryTransfers implements TransferStore {
  private readonly staged = new Map<string, Buffer>();

  constructor(
    readonly maxBytes: number,
    readonly waitMs = 300_000,
  ) {}

  async write(jobId: string, side: TransferSide, data: Buffer): Promise<void> {
    this.staged.set(`${checkTransferJobId(jobId)}.${side}`, Buffer.from(data));
  }

  async read(jobId: string, side: TransferSide): Promise<Buffer> {
    const data = this.staged.get(`${checkTransferJobId(jobId)}.${side}`);
    if (!data) throw new TransferMissingError(jobId, side);
    return data;
  }

  async remove(jobId: string): Promise<void> {
    for (const side of ["in", "out"]) this.staged.delete(`${jobId}.${side}`);
  }
}
