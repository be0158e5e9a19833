/** What the API's routes are built with (apart from app.ts, so routes do not import their app). */
import type { ServiceDeps } from "../service/deps.js";

export interface ApiDeps extends ServiceDeps {
  bodyLimitBytes: number;
}
