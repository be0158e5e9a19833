import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Dockerode from "dockerode";
import {
  DockerSandboxProvider,
  type DockerSandboxProviderOptions,
} from "../../src/sandbox/docker-provider.js";
import {
  DEFAULT_UID_BASE,
  type ExecRequest,
  identitiesFrom,
  type SandboxIdentities,
} from "../../src/sandbox/sandbox.js";
import {
  DEFAULT_SLOT_BASE,
  labelledSlot,
  slotIdentities,
  type UidSlots,
} from "../../src/sandbox/uid-slots.js";
import { pollUntil } from "../support/wait-for-job.js";

/** The image scripts/test.sh builds, or the build SANDBOX_IMAGE names (checkouts sharing one engine). */
export const TEST_IMAGE = process.env.SANDBOX_IMAGE ?? "toolshed-sandbox:latest";
export const docker = new Dockerode();

/**
 * A uid range per sandbox for every test provider and harness when the run sets SANDBOX_UID_SLOTS
 * (the suite then runs as a host with the setting on would).
 */
export const TEST_UID_SLOTS: UidSlots | undefined =
  Number(process.env.SANDBOX_UID_SLOTS) > 0
    ? { base: DEFAULT_SLOT_BASE, count: Number(process.env.SANDBOX_UID_SLOTS) }
    : undefined;

/**
 * The identities the session's container runs under, from its slot label (any test's layout
 * starts at DEFAULT_SLOT_BASE), else the shared range: what a test expects `id -u` to show.
 */
export async function identitiesOf(sessionId: string, serviceId?: string): Promise<SandboxIdentities> {
  const label = [`toolshed.session=${sessionId}`, ...(serviceId ? [`toolshed.service=${serviceId}`] : [])];
  const [c] = await docker.listContainers({ all: true, filters: { label } });
  return identitiesLabelled(c?.Labels);
}

/** The identities a container with these labels runs under (see identitiesOf). */
export function identitiesLabelled(labels: Record<string, string> | undefined): SandboxIdentities {
  const layout = { base: DEFAULT_SLOT_BASE, count: 2 ** 20 };
  const slot = labelledSlot(layout, labels);
  return slot === undefined ? identitiesFrom(DEFAULT_UID_BASE) : slotIdentities(layout, slot);
}

/** A provider with its own serviceId and temp dataDir; `cleanup()` removes every trace. */
export interface TestProvider {
  provider: DockerSandboxProvider;
  serviceId: string;
  dataDir: string;
  options: DockerSandboxProviderOptions;
  cleanup(): Promise<void>;
}

/** Creates a provider for one test file (small limits so the limit tests stay quick). */
export async function createTestProvider(
  overrides: Partial<DockerSandboxProviderOptions> = {},
  shared?: { serviceId: string; dataDir: string },
): Promise<TestProvider> {
  const serviceId = shared?.serviceId ?? `test-${randomBytes(4).toString("hex")}`;
  const dataDir = shared?.dataDir ?? (await mkdtemp(join(tmpdir(), "tsb-")));
  const options: DockerSandboxProviderOptions = {
    docker,
    dataDir,
    serviceId,
    image: TEST_IMAGE,
    limits: { memoryBytes: 256 * 1024 * 1024, pids: 128, nanoCpus: 1_000_000_000 },
    idleStopMs: 10 * 60_000,
    ...(TEST_UID_SLOTS ? { uidSlots: TEST_UID_SLOTS } : {}),
    ...overrides,
  };
  const provider = new DockerSandboxProvider(options);
  return {
    provider,
    serviceId,
    dataDir,
    options,
    async cleanup() {
      await provider.close();
      await removeServiceContainers(serviceId);
      if (!shared) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A provider with a warm pool of two over a small quota, once both warm sandboxes are ready. */
export async function createWarmTestProvider(
  overrides: Partial<DockerSandboxProviderOptions> = {},
): Promise<TestProvider> {
  const t = await createTestProvider({
    warmPool: 2,
    workspaceQuota: { diskBytes: 16 * 1024 * 1024, inodes: 1000 },
    ...overrides,
  });
  await pollUntil(
    () => t.provider.warmReady,
    (n) => n === 2,
    { timeoutMs: 60_000, what: "two warm sandboxes" },
  );
  return t;
}

/** Force-removes every container labelled with `serviceId` (only ours: ids are random). */
export async function removeServiceContainers(serviceId: string): Promise<void> {
  for (const c of await serviceContainers(serviceId)) {
    await docker.getContainer(c.Id).remove({ force: true, v: true });
  }
}

/** Containers (running or not) of one test service. */
export function serviceContainers(serviceId: string, sessionId?: string): Promise<Dockerode.ContainerInfo[]> {
  const label = [`toolshed.service=${serviceId}`];
  if (sessionId) label.push(`toolshed.session=${sessionId}`);
  return docker.listContainers({ all: true, filters: { label } });
}

/** A bash command with sane defaults for tests. */
export function sh(command: string, extra: Partial<ExecRequest> = {}): ExecRequest {
  return { argv: ["bash", "-c", command], timeoutMs: 20_000, maxOutputBytes: 1024 * 1024, ...extra };
}

/** Runs argv in a container as its root (what an operator with the engine can do); waits for it to end. */
export async function execAsRoot(containerId: string, argv: string[]): Promise<void> {
  const exec = await docker.getContainer(containerId).exec({ Cmd: argv, User: "0", AttachStdout: true });
  const stream = await exec.start({});
  stream.resume();
  await new Promise((resolve) => stream.on("end", resolve));
}
