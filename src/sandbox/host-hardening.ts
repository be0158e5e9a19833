/**
 * Kernel settings of the sandbox host that containers cannot set for themselves: `fs.protected_*`
 * are host-wide, and with them at 0 an agent can plant a symlink, fifo or file at a fixed path in a
 * shared sticky directory (`/tmp`, `/dev/shm`) that an MCP server of the same sandbox then opens
 * (NOTES-attack26b). systemd sets these defaults; minimal hosts and some VMs do not. A worker says
 * so at start (it does not change the host itself; scripts/services.sh does, as root).
 */
import { readFileSync } from "node:fs";

/** The setting, and the least value that protects a sticky directory's other users. */
const WANTED: Record<string, number> = {
  protected_symlinks: 1,
  protected_hardlinks: 1,
  protected_regular: 2,
  protected_fifos: 1,
};

/** `fs.<name>=<want>` for each setting below what it should be (unreadable ones are not named). */
export function weakHostSettings(read: (name: string) => string | undefined = readProcSysFs): string[] {
  return Object.entries(WANTED).flatMap(([name, want]) => {
    const raw = read(name);
    if (raw === undefined) return [];
    const have = Number.parseInt(raw.trim(), 10);
    return Number.isFinite(have) && have < want ? [`fs.${name}=${want}`] : [];
  });
}

function readProcSysFs(name: string): string | undefined {
  try {
    return readFileSync(`/proc/sys/fs/${name}`, "utf8");
  } catch {
    return undefined;
  }
}
