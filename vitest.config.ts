import { defineConfig } from "vitest/config";

// Two projects: `unit` needs nothing running; `integration` (files *.int.test.ts) needs the
// real Docker engine, Redis and the sandbox image that scripts/test.sh brings up.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/**/*.test.ts"],
          exclude: ["test/**/*.int.test.ts", "node_modules/**"],
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: "integration",
          include: ["test/**/*.int.test.ts"],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          // Containers and Redis are shared machine resources: keep files sequential.
          fileParallelism: false,
        },
      },
    ],
  },
});
