import { describe, expect, it } from "vitest";
import { refusedAddress } from "../../src/net/address-ranges.js";
import { formatIp, inCidr, parseCidr, parseIp } from "../../src/net/ip-address.js";

const kindOf = (text: string) => {
  const bytes = parseIp(text);
  if (!bytes) throw new Error(`not an address: ${text}`);
  return refusedAddress(bytes)?.kind ?? "allowed";
};

describe("the egress address classifier", () => {
  it.each([
    // IPv4
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "shared (CGNAT)"],
    ["100.127.255.255", "shared (CGNAT)"],
    ["169.254.1.1", "link-local"],
    ["169.254.169.254", "cloud-metadata"],
    ["169.254.170.2", "cloud-metadata"],
    ["100.100.100.200", "cloud-metadata"],
    ["168.63.129.16", "cloud-metadata"],
    ["0.0.0.0", "this-network"],
    ["0.1.2.3", "this-network"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["240.0.0.1", "reserved"],
    ["192.0.0.170", "reserved"],
    ["198.18.0.1", "reserved"],
    // IPv4 neighbours of refused blocks stay allowed
    ["172.15.255.255", "allowed"],
    ["172.32.0.0", "allowed"],
    ["100.63.255.255", "allowed"],
    ["100.128.0.0", "allowed"],
    ["11.0.0.1", "allowed"],
    ["93.184.216.34", "allowed"],
    ["8.8.8.8", "allowed"],
    ["223.255.255.255", "allowed"],
    // IPv6
    ["::1", "loopback"],
    ["::", "this-network"],
    ["fc00::1", "unique-local"],
    ["fdff:ffff::1", "unique-local"],
    ["fd00:ec2::254", "cloud-metadata"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["febf::1", "link-local"],
    ["fec0::1", "private"],
    ["ff02::1", "multicast"],
    ["100::1", "reserved"],
    ["2001:4860:4860::8888", "allowed"],
    ["2606:4700::1111", "allowed"],
    // IPv6 forms of refused IPv4 addresses
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:169.254.169.254", "cloud-metadata"],
    ["::ffff:a9fe:a9fe", "cloud-metadata"],
    ["::ffff:100.64.0.1", "shared (CGNAT)"],
    ["::ffff:0.0.0.0", "this-network"],
    ["::127.0.0.1", "loopback"],
    ["64:ff9b::7f00:1", "loopback"],
    ["64:ff9b::a9fe:a9fe", "cloud-metadata"],
    ["2002:7f00:1::", "loopback"],
    ["2002:c0a8:101::1", "private"],
    ["::ffff:8.8.8.8", "allowed"],
    ["64:ff9b::808:808", "allowed"],
  ])("%s → %s", (address, kind) => {
    expect(kindOf(address)).toBe(kind);
  });

  it("names the refused address and the block it fell in", () => {
    expect(refusedAddress(parseIp("::ffff:127.0.0.2")!)).toEqual({
      address: "0:0:0:0:0:ffff:7f00:2",
      kind: "loopback",
      range: "127.0.0.0/8",
    });
  });
});

describe("addresses and CIDRs", () => {
  it.each([
    "1.2.3",
    "1.2.3.4.5",
    "256.1.1.1",
    "01.2.3.4",
    "1.2.3.-1",
    "a.b.c.d",
    "",
    "1::2::3",
    "12345::",
    "::g",
    "1:2:3:4:5:6:7:8:9",
    "1:2:3:4:5:6:7",
  ])("refuses %j as an address", (text) => {
    expect(parseIp(text)).toBeNull();
  });

  it("parses IPv6 shorthand and a dotted-quad tail", () => {
    expect(formatIp(parseIp("1::")!)).toBe("1:0:0:0:0:0:0:0");
    expect(formatIp(parseIp("[::ffff:1.2.3.4]")!)).toBe("0:0:0:0:0:ffff:102:304");
    expect(formatIp(parseIp("1:2:3:4:5:6:7::")!)).toBe("1:2:3:4:5:6:7:0");
  });

  it("matches prefixes bit by bit, never across families", () => {
    const block = parseCidr("10.0.0.0/9")!;
    expect(inCidr(parseIp("10.127.255.255")!, block)).toBe(true);
    expect(inCidr(parseIp("10.128.0.0")!, block)).toBe(false);
    expect(inCidr(parseIp("::ffff:10.0.0.1")!, block)).toBe(false);
    expect(inCidr(parseIp("1.2.3.4")!, parseCidr("0.0.0.0/0")!)).toBe(true);
    expect(parseCidr("127.0.0.1")).toEqual({ bytes: parseIp("127.0.0.1"), prefix: 32 });
    expect([
      parseCidr("10.0.0.0/33"),
      parseCidr("::/129"),
      parseCidr("10/8"),
      parseCidr("1.2.3.4/8/1"),
    ]).toEqual([null, null, null, null]);
  });
});
