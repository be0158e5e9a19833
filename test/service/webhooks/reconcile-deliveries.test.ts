/** The webhook-delivery reconcile on SQLite (reconcile-deliveries-contract.ts): two connections stand for two hosts. */
import { sqliteTwice } from "../../support/two-handles.js";
import { reconcileContract } from "./reconcile-deliveries-contract.js";

reconcileContract("sqlite", async () => sqliteTwice("whr-"));
