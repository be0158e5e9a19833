import { randomBytes } from "node:crypto";
import { expect, it } from "vitest";
import { SecretBox } from "../../../src/service/secret-box.js";
import { sessionSandboxSettings } from "../../../src/service/tenancy/sandbox-settings.js";

it("a variable set stored before its names were reserved never reaches a command", () => {
  const secrets = SecretBox.fromKey(randomBytes(32));
  // As an earlier version stored it: sealed as given, LD_AUDIT and BASH_ENV accepted then.
  const env = {
    LD_AUDIT: "/workspace/a.so",
    BASH_ENV: "/workspace/rc",
    NODE_OPTIONS: "-r x",
    RIPGREP_CONFIG_PATH: "/workspace/rgrc",
    LANGUAGE: "../../../workspace/l",
    TZ: "Europe/Paris",
    TOKEN: "t",
  };
  const envSealed = secrets.seal(env, "tenant-sandbox-env:ten_a");
  const settings = sessionSandboxSettings(secrets, "ten_a", { envNames: Object.keys(env), envSealed });
  expect(settings.env).toEqual({ TZ: "Europe/Paris", TOKEN: "t" });
});
