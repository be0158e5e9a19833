import { describe, expect, it } from "vitest";
import { weakHostSettings } from "../../src/sandbox/host-hardening.js";

const host = (values: Record<string, string>) => (name: string) => values[name];
/** This round's counters as services.sh leaves them. */
const raised = {
  "file-max": "9223372036854775807",
  "inotify/max_user_instances": "2147483647",
  "inotify/max_user_watches": "2147483647",
  "pipe-user-pages-soft": "0",
};

describe("weakHostSettings", () => {
  it("names each fs.protected_* setting below what protects a shared sticky directory", () => {
    const zero = {
      protected_symlinks: "0\n",
      protected_hardlinks: "0\n",
      protected_regular: "0\n",
      protected_fifos: "0\n",
    };
    expect(weakHostSettings(host(zero))).toEqual([
      "fs.protected_symlinks=1",
      "fs.protected_hardlinks=1",
      "fs.protected_regular=2",
      "fs.protected_fifos=1",
    ]);
    // systemd's defaults, and protected_regular at 1 (only world-writable sticky directories).
    const systemd = {
      protected_symlinks: "1",
      protected_hardlinks: "1",
      protected_regular: "2",
      protected_fifos: "1",
      ...raised,
    };
    expect(weakHostSettings(host(systemd))).toEqual([]);
    expect(weakHostSettings(host({ ...systemd, protected_regular: "1" }))).toEqual([
      "fs.protected_regular=2",
    ]);
  });

  // attack27b: every sandbox's agent is one host uid, so these counters are the host's.
  it("names each shared counter that one sandbox could exhaust for all, as this host had them", () => {
    const kernelDefaults = {
      "file-max": "2466116",
      "inotify/max_user_instances": "128",
      "inotify/max_user_watches": "192530",
      "pipe-user-pages-soft": "16384",
    };
    expect(weakHostSettings(host(kernelDefaults))).toEqual([
      "fs.file-max=9223372036854775807",
      "fs.inotify.max_user_instances=2147483647",
      "fs.inotify.max_user_watches=2147483647",
      "fs.pipe-user-pages-soft=0",
    ]);
    expect(weakHostSettings(host(raised))).toEqual([]);
  });

  it("names nothing it cannot read (a kernel without the setting)", () => {
    expect(weakHostSettings(host({}))).toEqual([]);
  });
});
