import { describe, expect, it } from "vitest";
import { checkSedExpression, parseSedArgs } from "../../../src/permission/bash/sed.js";
import { check } from "./context.js";

describe("sed argument parsing", () => {
  it.each([
    [["s/a/b/", "f"], ["s/a/b/"], ["f"], ""],
    [["-e", "s/a/b/", "f"], ["s/a/b/"], ["f"], "e"],
    [["--expression", "s/a/b/", "f"], ["s/a/b/"], ["f"], ""],
    [["--expression=s/a/b/", "f"], ["s/a/b/"], ["f"], ""],
    [["-es/a/b/", "f"], ["s/a/b/"], ["f"], "e"],
    [["-n", "-e", "1p", "-e", "s/x/y/", "f", "g"], ["1p", "s/x/y/"], ["f", "g"], "en"],
    [["-i", "y/a/b/", "f"], ["y/a/b/"], ["f"], "i"],
    [["-i.bak", "s/a/b/", "f"], ["s/a/b/"], ["f"], "i"],
    [["--in-place=.bak", "s/a/b/", "f"], ["s/a/b/"], ["f"], "i"],
    [["--in-place", "s/a/b/", "f"], ["s/a/b/"], ["f"], "i"],
    [["-ni", "s/a/b/", "f"], ["s/a/b/"], ["f"], "in"],
  ])("%j → expressions %j, files %j, flags %s", (args, expressions, files, flags) => {
    const call = parseSedArgs(args);
    expect(call.error).toBeNull();
    expect(call.expressions).toEqual(expressions);
    expect(call.files).toEqual(files);
    expect([...call.flags].sort().join("")).toBe(flags);
  });

  it.each([
    [["-r", "s/a/b/"], "sed flag -r not allowed"],
    [["-z", "s/a/b/"], "sed flag -z not allowed"],
    [["-i", "-u", "s/a/b/"], "sed flag -u not allowed"],
    [["--file=x.sed", "f"], "sed flag --file not allowed"],
    [["-n"], "sed command missing expression"],
  ])("%j → %s", (args, error) => {
    expect(parseSedArgs(args).error).toBe(error);
  });
});

describe("sed expression allowlist", () => {
  it.each(["s/a/b/", "s/a/b/g", "s|a|b|", "s#a#b#g", "s/a/b/2", "s/a/b"])("%j allowed", (e) => {
    expect(checkSedExpression(e, false)).toBeNull();
  });
  it.each(["5p", "1,3p"])("%j allowed with -n", (e) => {
    expect(checkSedExpression(e, true)).toBeNull();
    expect(checkSedExpression(e, false)).toBe(`sed expression '${e}' not in allowlist`);
  });
  it.each([
    ["s/a/b/w out", "sed write operation (w/W) not allowed"],
    ["s/a/b/W", "sed write operation (w/W) not allowed"],
    ["s/a/b/e", "sed execute operation (e/E) not allowed"],
    ["s/a/b/gI", "sed expression 's/a/b/gI' not in allowlist"],
    ["y/a/b/", "sed expression 'y/a/b/' not in allowlist"],
    ["$p", "sed expression '$p' not in allowlist"],
    ["s/a/b/;s/c/d/", "sed expression 's/a/b/;s/c/d/' not in allowlist"],
  ])("%j → %s", (e, error) => {
    expect(checkSedExpression(e, false)).toBe(error);
  });
});

describe("sed in the policy", () => {
  it.each([
    "sed 's/a/b/' f | sort -u",
    "sed -i s/a/b/ .env.example",
    "sed -i s/a/b/ my.profile.txt",
    "sed -n '5p' f && echo 'unrelated -z'",
    "npm run build",
  ])("%j passes the sed layer", (command) => {
    expect(check(command).behavior).toBe("passthrough");
  });

  it.each([
    ["sed -i s/a/b/ .env", "sed -i modifying dangerous file: .env"],
    ["sed --in-place=.bak s/a/b/ ~/.bashrc", "sed -i modifying dangerous file: ~/.bashrc"],
    ["sed -i.bak s/a/b/ .git/config", "sed -i modifying dangerous file: .git/config"],
    ["/usr/bin/sed -e 's/a/b/w /tmp/x' f", "sed write operation (w/W) not allowed"],
    ["sed --expression 's/a/b/' --expression 'd' f", "sed expression 'd' not in allowlist"],
  ])("%j → %s", (command, error) => {
    expect(check(command)).toMatchObject({
      message: `Permission required: ${error}`,
      reason: `Safety check: ${error}`,
    });
  });

  it("without -i, a dangerous file is caught by the path layer", () => {
    expect(check("sed -n 1p .env").message).toBe(
      "Permission required: Bash command operates on sensitive paths: .env",
    );
  });
});
