/** The per-call configuration caches on SQLite (config-caches-contract.ts): two handles on one file. */
import { sqliteTwice } from "../support/two-handles.js";
import { configCachesContract } from "./config-caches-contract.js";

configCachesContract("sqlite", async () => sqliteTwice("tsc-"));
