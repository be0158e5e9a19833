import { describe, expect, it } from "vitest";
import { checkPermission } from "../../../src/permission/engine.js";
import { bash, bashCtx } from "./context.js";
import { DAILY_COMMANDS } from "./daily-commands.js";

describe("fifty daily agent commands (default mode, no rules)", () => {
  it("is a list of fifty distinct commands", () => {
    expect(new Set(DAILY_COMMANDS.map((d) => d.command)).size).toBe(50);
  });

  it.each(DAILY_COMMANDS.map((d) => [d.command, d.allowed] as const))(
    "%j allowed: %s",
    (command, allowed) => {
      const d = checkPermission(bash, { command }, bashCtx("default"));
      expect(d.behavior === "allow", d.message).toBe(allowed);
    },
  );

  it("none lost, the quoted-`>` ones gained: 50 allowed (45 before)", () => {
    const allowed = DAILY_COMMANDS.filter(
      (d) => checkPermission(bash, { command: d.command }, bashCtx("default")).behavior === "allow",
    );
    expect(allowed).toHaveLength(50);
    expect(DAILY_COMMANDS.filter((d) => d.gained)).toHaveLength(5);
  });
});
