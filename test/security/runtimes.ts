import { runtimeRegistered } from "../../src/sandbox/sandbox-runtime.js";
import { docker } from "../sandbox/harness.js";

/** gVisor is registered with the test engine (scripts/register-runsc.sh; CI installs it). */
export const RUNSC = await runtimeRegistered(docker, "runsc");

/** The runtimes a containment test runs under: runc always, runsc when registered. */
export const RUNTIMES = RUNSC ? ["runc", "runsc"] : ["runc"];
