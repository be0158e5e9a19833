import { defineConfig } from "drizzle-kit";

// The Postgres dialect's migrations (`npm run db:generate` makes both dialects').
// biome-ignore lint/style/noDefaultExport: drizzle-kit loads the default export.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/db/pg/schema.ts",
  out: "./migrations-pg",
});
