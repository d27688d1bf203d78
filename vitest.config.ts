import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    // Test files share their workers' modules instead of importing the server anew each (a fifth of the
    // suite's time): no module of the project holds state that one file could leave to the next.
    isolate: false,
    // Many tests wait on processes they start (servers, git, the fetcher): more files than cores at once
    // keep both cores busy.
    maxWorkers: 4,
    // Generous, so that a machine busy with other work slows the suite down instead of failing it; a test
    // that hangs still ends.
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
