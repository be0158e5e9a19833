import { describe, expect, it } from "vitest";
import { weakHostSettings } from "../../src/sandbox/host-hardening.js";

const host = (values: Record<string, string>) => (name: string) => values[name];

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
    };
    expect(weakHostSettings(host(systemd))).toEqual([]);
    expect(weakHostSettings(host({ ...systemd, protected_regular: "1" }))).toEqual([
      "fs.protected_regular=2",
    ]);
  });

  it("names nothing it cannot read (a kernel without the setting)", () => {
    expect(weakHostSettings(host({}))).toEqual([]);
  });
});
