/** Session placement on SQLite: two connections to one database file (two workers' view). */
import { sqliteTwice } from "../support/two-handles.js";
import { placementContract } from "./session-hosts-contract.js";

placementContract("sqlite", async () => sqliteTwice("tst-hosts-"));
