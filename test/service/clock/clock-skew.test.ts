/** Clock skew on SQLite (clock-skew-contract.ts): two connections to one file stand for two hosts. */
import { sqliteTwice } from "../../support/two-handles.js";
import { clockSkewContract } from "./clock-skew-contract.js";

clockSkewContract("sqlite", async () => sqliteTwice("clock-"));
