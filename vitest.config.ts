import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    // Generous, so that a machine busy with other work slows the suite down instead of failing it; a test
    // that hangs still ends.
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
