/**
 * The command line: `serve` (API + worker), `api`, `worker`, `policy check`. Each command's
 * module is loaded on demand so that `policy check` starts without Redis, Docker or SQLite.
 */

const USAGE = `usage: toolshed <command>
  serve          API and worker in one process
  api            the HTTP API only
  worker         a worker only
  policy check   JSON Lines on stdin -> one decision per line on stdout
  db migrate     apply the Postgres migrations to DATABASE_URL
  openapi [file] the OpenAPI document (to stdout, or written to file)
  client-contract  the clients' error codes and retry rules, from the OpenAPI document`;

async function main(argv: string[]): Promise<number> {
  const [command, sub] = argv;
  if (command === "policy" && sub === "check") {
    const { runPolicyCheckCli } = await import("./cli/policy-check.js");
    return runPolicyCheckCli(process.stdin, process.stdout);
  }
  if (command === "openapi") {
    const { runOpenApiCli } = await import("./cli/openapi.js");
    return runOpenApiCli(sub, process.stdout);
  }
  if (command === "client-contract") {
    const { runClientContractCli } = await import("./cli/client-contract.js");
    return runClientContractCli();
  }
  if (command === "db" && sub === "migrate") {
    const [{ loadConfig }, { runDbMigrate }] = await Promise.all([
      import("./config.js"),
      import("./cli/database.js"),
    ]);
    return runDbMigrate(loadConfig(), process.stdout);
  }
  if (command === "serve" || command === "api" || command === "worker") {
    const { runServer } = await import("./cli/serve.js");
    return runServer(command);
  }
  process.stderr.write(`${USAGE}\n`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
