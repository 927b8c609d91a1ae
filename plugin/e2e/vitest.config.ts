// Browser tests: the built plugin in headless Chromium against a real `vault-agent serve`.
// Run with `npm run test:e2e` (builds first). See plugin/e2e/README.md.
import { defineConfig } from "vitest/config";

export default defineConfig({
	test: {
		include: ["plugin/e2e/**/*.e2e.ts"],
		environment: "node",
		globalSetup: ["plugin/e2e/global-setup.ts"],
		testTimeout: 60_000,
		hookTimeout: 180_000,
		fileParallelism: false,
	},
});
