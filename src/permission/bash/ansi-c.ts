/** Decoding of bash `$'...'` strings, so `$'\x72m'` is seen as `rm`. */

const SIMPLE: Record<string, string> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

const ESCAPE =
  /\\(?:([abeEfnrtv\\'"?])|x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{1,4})|U([0-9a-fA-F]{1,8})|([0-7]{1,3})|(c.?)|([\s\S]?))/g;

/**
 * The value of the body of `$'...'`; null when it uses an escape we do not model (`\cX`). bash's
 * string ends at a NUL (`$'rm\x00x'` is `rm`, `$'.git\0'` is `.git`): so does the value, else
 * `git $'push\x00'` escaped a deny rule for `git push` and `mv d $'sub/.git\x00'` the sensitive-path
 * layer (attack26a).
 */
export function decodeAnsiC(body: string): string | null {
  let unknown = false;
  const out = body.replace(ESCAPE, (m, simple, hex, u4, u8, oct, ctrl, other) => {
    if (simple) return SIMPLE[simple] ?? "";
    const code = hex ?? u4 ?? u8;
    if (code) {
      const n = Number.parseInt(code, 16);
      return n <= 0x10ffff ? String.fromCodePoint(n) : "";
    }
    if (oct) return String.fromCharCode(Number.parseInt(oct, 8) & 0xff);
    if (ctrl !== undefined) unknown = true;
    return other === undefined ? m : `\\${other}`;
  });
  if (unknown) return null;
  const nul = out.indexOf("\0");
  return nul === -1 ? out : out.slice(0, nul);
}
