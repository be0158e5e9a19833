/**
 * uid28: the uid slot layout, the slot label, the account files a slot's container gets, and the
 * allocator's choice among the engine's containers (an engine that answers a fixed list).
 */
import type Dockerode from "dockerode";
import { describe, expect, it } from "vitest";
import { buildContainerSpec, type ContainerSpecInput } from "../../src/sandbox/container-spec.js";
import { passwdFiles } from "../../src/sandbox/passwd-files.js";
import { DEFAULT_UID_BASE, identitiesFrom } from "../../src/sandbox/sandbox.js";
import {
  LABEL_UID_SLOT,
  labelledSlot,
  slotIdentities,
  slotOfUid,
  UID_SLOT_WIDTH,
  UidSlotAllocator,
  type UidSlots,
  uidSlotsProblem,
} from "../../src/sandbox/uid-slots.js";

const slots: UidSlots = { base: 1_000_000_000, count: 100 };

describe("the slot layout", () => {
  it("puts every identity of a slot inside its range, and no two slots' ranges overlap", () => {
    const a = slotIdentities(slots, 3);
    const uids = [
      a.agent,
      a.editor,
      a.mcp,
      a.readerGroup,
      a.readerBase + a.readerCount - 1,
      a.mcpBase + a.mcpCount - 2,
    ];
    for (const uid of uids) expect(slotOfUid(slots, uid)).toBe(3);
    expect(slotOfUid(slots, slotIdentities(slots, 4).agent)).toBe(4);
    expect(a.agent).toBe(slots.base + 3 * UID_SLOT_WIDTH);
  });

  it("knows no slot for uids outside the layout", () => {
    expect(slotOfUid(slots, DEFAULT_UID_BASE)).toBeUndefined();
    expect(slotOfUid(slots, 0)).toBeUndefined();
    expect(slotOfUid(slots, slots.base + UID_SLOT_WIDTH * slots.count)).toBeUndefined();
  });

  it("refuses a layout past 2^31", () => {
    expect(uidSlotsProblem(slots)).toBeUndefined();
    expect(uidSlotsProblem({ base: 2_000_000_000, count: 2_000_000 })).toMatch(/past 2\^31/);
  });

  it("reads only a slot of this layout from a label", () => {
    expect(labelledSlot(slots, { [LABEL_UID_SLOT]: "7" })).toBe(7);
    for (const text of ["", "-1", "1e3", "100", "07x"])
      expect(labelledSlot(slots, { [LABEL_UID_SLOT]: text })).toBeUndefined();
    expect(labelledSlot(slots, {})).toBeUndefined();
  });
});

describe("a slot's container", () => {
  const input: ContainerSpecInput = {
    name: "toolshed-svc-ses_1",
    image: "toolshed-sandbox:latest",
    serviceId: "svc",
    sessionId: "ses_1",
    tenantId: "ten_1",
    workspaceHostDir: "/data/ws",
    runHostDir: "/data/run/k",
    limits: { memoryBytes: 1 << 28, pids: 128, nanoCpus: 1e9 },
    identities: slotIdentities(slots, 2),
    uidSlot: 2,
    accountFiles: [{ hostPath: "/data/run/k/passwd", containerPath: "/etc/passwd" }],
  };
  const spec = buildContainerSpec(input);

  it("carries its slot as a label, its home owned by the slot's agent, its account files read-only", () => {
    expect(spec.Labels?.[LABEL_UID_SLOT]).toBe("2");
    const agent = slots.base + 2 * UID_SLOT_WIDTH;
    expect(spec.HostConfig?.Tmpfs?.["/home/agent"]).toContain(`uid=${agent},gid=${agent}`);
    expect(spec.HostConfig?.Binds).toContain("/data/run/k/passwd:/etc/passwd:ro");
  });

  it("has no slot label and no account files without a slot", () => {
    const plain = buildContainerSpec({ ...input, uidSlot: undefined, accountFiles: undefined });
    expect(plain.Labels?.[LABEL_UID_SLOT]).toBeUndefined();
    expect(plain.HostConfig?.Binds?.some((b) => b.includes("/etc/"))).toBe(false);
  });
});

describe("the account files", () => {
  const parse = (text: string) =>
    text
      .trimEnd()
      .split("\n")
      .map((l) => l.split(":"));

  it("name the default identities as the image does", () => {
    const { passwd, group } = passwdFiles(identitiesFrom(DEFAULT_UID_BASE));
    const users = new Map(parse(passwd).map((f) => [f[0], f]));
    expect(users.get("agent")).toEqual([
      "agent",
      "x",
      "100000",
      "100000",
      "agent",
      "/home/agent",
      "/bin/bash",
    ]);
    expect(users.get("editor")?.slice(2, 4)).toEqual(["100003", "100000"]);
    expect(users.get("mcp")?.[2]).toBe("100002");
    expect(users.get("mcp63")?.[2]).toBe("100094");
    expect(users.get("reader15")?.slice(2, 4)).toEqual(["100025", "100001"]);
    expect(users.get("root")?.[2]).toBe("0");
    expect(parse(group).filter((g) => ["agent", "readers"].includes(g[0]!))).toEqual([
      ["agent", "x", "100000", ""],
      ["readers", "x", "100001", ""],
    ]);
  });

  it("give each uid one name, all inside the slot's range", () => {
    const ids = slotIdentities(slots, 5);
    const rows = parse(passwdFiles(ids).passwd);
    const uids = rows.map((f) => Number(f[2]));
    expect(new Set(uids).size).toBe(uids.length);
    expect(new Set(rows.map((f) => f[0])).size).toBe(rows.length);
    for (const uid of uids.filter((u) => u >= 100000)) expect(slotOfUid(slots, uid)).toBe(5);
  });
});

describe("the allocator", () => {
  const engine = (containers: { name: string; slot: string }[]) =>
    ({
      listContainers: async () =>
        containers.map((c) => ({ Names: [`/${c.name}`], Labels: { [LABEL_UID_SLOT]: c.slot } })),
    }) as unknown as Dockerode;

  it("gives a slot no container holds, and never one it handed out and still reserves", async () => {
    const small = { base: slots.base, count: 4 };
    const alloc = new UidSlotAllocator(
      engine([
        { name: "a", slot: "0" },
        { name: "b", slot: "2" },
      ]),
      small,
    );
    const [x, y] = await Promise.all([alloc.hold("x"), alloc.hold("y")]);
    expect([x.slot, y.slot].sort()).toEqual([1, 3]);
    // The picks are random among free slots, so which of the two x got is not fixed.
    x.release();
    expect((await alloc.hold("z")).slot).toBe(x.slot);
  });

  it("keeps the preferred slot when only the container itself holds it", async () => {
    const alloc = new UidSlotAllocator(
      engine([
        { name: "me", slot: "4" },
        { name: "b", slot: "5" },
      ]),
      slots,
    );
    expect((await alloc.hold("me", 4)).slot).toBe(4);
    const other = (await alloc.hold("other", 5)).slot;
    expect([4, 5]).not.toContain(other);
  });

  it("fails when every slot is taken", async () => {
    const alloc = new UidSlotAllocator(engine([{ name: "a", slot: "0" }]), { base: slots.base, count: 1 });
    await expect(alloc.hold("b")).rejects.toThrow(/all 1 uid slots/);
  });
});
