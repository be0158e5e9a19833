import { chmod, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { SandboxIdentities } from "./sandbox.js";

/**
 * /etc/passwd and /etc/group for a sandbox whose uids are not the image's (a uid slot): the image
 * names 100000.. (images/build.sh), so without these `whoami`, `ls -l`, git's author fallback and
 * python's `pwd.getpwuid` would find no name. Written by the host into the run directory and
 * bind-mounted read-only over the image's (the root stays read-only).
 */

/** Where the container sees them. */
export const PASSWD_MOUNTS = { passwd: "/etc/passwd", group: "/etc/group" } as const;

// The image's system accounts (Debian 12 minbase as images/build.sh makes it): unchanged.
const SYSTEM_PASSWD = [
  "root:x:0:0:root:/root:/bin/bash",
  "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin",
  "bin:x:2:2:bin:/bin:/usr/sbin/nologin",
  "sys:x:3:3:sys:/dev:/usr/sbin/nologin",
  "sync:x:4:65534:sync:/bin:/bin/sync",
  "games:x:5:60:games:/usr/games:/usr/sbin/nologin",
  "man:x:6:12:man:/var/cache/man:/usr/sbin/nologin",
  "lp:x:7:7:lp:/var/spool/lpd:/usr/sbin/nologin",
  "mail:x:8:8:mail:/var/mail:/usr/sbin/nologin",
  "news:x:9:9:news:/var/spool/news:/usr/sbin/nologin",
  "uucp:x:10:10:uucp:/var/spool/uucp:/usr/sbin/nologin",
  "proxy:x:13:13:proxy:/bin:/usr/sbin/nologin",
  "www-data:x:33:33:www-data:/var/www:/usr/sbin/nologin",
  "backup:x:34:34:backup:/var/backups:/usr/sbin/nologin",
  "list:x:38:38:Mailing List Manager:/var/list:/usr/sbin/nologin",
  "irc:x:39:39:ircd:/run/ircd:/usr/sbin/nologin",
  "_apt:x:42:65534::/nonexistent:/usr/sbin/nologin",
  "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin",
];
const SYSTEM_GROUPS =
  "root:0 daemon:1 bin:2 sys:3 adm:4 tty:5 disk:6 lp:7 mail:8 news:9 uucp:10 man:12 proxy:13 kmem:15 " +
  "dialout:20 fax:21 voice:22 cdrom:24 floppy:25 tape:26 sudo:27 audio:29 dip:30 www-data:33 backup:34 " +
  "operator:37 list:38 irc:39 src:40 shadow:42 utmp:43 video:44 sasl:45 plugdev:46 staff:50 games:60 " +
  "users:100 nogroup:65534";

/** The two files' text for these identities (the same names build.sh gives the defaults). */
export function passwdFiles(ids: SandboxIdentities): { passwd: string; group: string } {
  const nologin = "/nonexistent:/usr/sbin/nologin";
  const passwd = [
    ...SYSTEM_PASSWD,
    `agent:x:${ids.agent}:${ids.agent}:agent:/home/agent:/bin/bash`,
    `mcp:x:${ids.mcp}:${ids.agent}:mcp:${nologin}`,
    ...Array.from(
      { length: ids.mcpCount - 1 },
      (_, i) => `mcp${i + 1}:x:${ids.mcpBase + i}:${ids.agent}:stdio MCP servers:${nologin}`,
    ),
    `editor:x:${ids.editor}:${ids.agent}:accept_edits calls:${nologin}`,
    ...Array.from(
      { length: ids.readerCount },
      (_, i) => `reader${i}:x:${ids.readerBase + i}:${ids.readerGroup}:read-only calls:${nologin}`,
    ),
  ];
  const group = [
    ...SYSTEM_GROUPS.split(" ").map((g) => `${g.replace(":", ":x:")}:`),
    `agent:x:${ids.agent}:`,
    `readers:x:${ids.readerGroup}:`,
  ];
  return { passwd: `${passwd.join("\n")}\n`, group: `${group.join("\n")}\n` };
}

/** Writes both into `runDir` (root's, world-readable like the image's); returns their host paths. */
export async function writePasswdFiles(
  runDir: string,
  ids: SandboxIdentities,
): Promise<{ hostPath: string; containerPath: string }[]> {
  const text = passwdFiles(ids);
  const out: { hostPath: string; containerPath: string }[] = [];
  for (const name of ["passwd", "group"] as const) {
    const hostPath = join(runDir, name);
    const tmp = `${hostPath}.${process.pid}.tmp`;
    await writeFile(tmp, text[name], { mode: 0o644 });
    await chmod(tmp, 0o644);
    await rename(tmp, hostPath);
    out.push({ hostPath, containerPath: PASSWD_MOUNTS[name] });
  }
  return out;
}
