/**
 * Ajv's regex engine for `pattern` and `patternProperties`: RE2 (re2js), linear in the input.
 * A tenant's schema meets an agent's input on the API's one thread, where a backtracking
 * `^(a+)+$` against 40 characters stalls every tenant for hours (attack23a).
 */
import type { RegExpEngine } from "ajv/dist/types/index.js";
import { RE2JS } from "re2js";

/**
 * JavaScript escapes RE2 spells differently (`\u00e9`, `\u{1F600}` → `\x{…}`); an escaped
 * backslash is copied whole so `\\u0041` stays a backslash and `u0041`.
 */
function toRe2Syntax(pattern: string): string {
  return pattern.replace(/\\\\|\\u\{([0-9A-Fa-f]{1,6})\}|\\u([0-9A-Fa-f]{4})/g, (whole, braced, four) =>
    braced || four ? `\\x{${braced ?? four}}` : whole,
  );
}

/** Compiles with RE2; a pattern it cannot run in linear time fails the schema, saying why. */
export const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string) => {
    let re: RE2JS;
    try {
      re = RE2JS.compile(toRe2Syntax(pattern));
    } catch (err) {
      throw new Error(
        `pattern ${JSON.stringify(pattern)} cannot run in linear time (${(err as Error).message}); ` +
          "lookarounds and backreferences are not supported",
      );
    }
    // Ajv keys its compiled patterns by `toString()`: each pattern needs its own.
    return { test: (s: string) => re.test(s), toString: () => `re2:${pattern}` };
  },
  { code: "linearRegExp" },
);
