import { defineConfig } from "drizzle-kit";

// biome-ignore lint/style/noDefaultExport: drizzle-kit loads the default export.
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/schema.ts",
  out: "./migrations",
});
