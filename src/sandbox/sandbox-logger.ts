/** The logger shape the sandbox provider and its parts need (pino fits). */
export interface SandboxLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}
