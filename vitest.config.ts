// Unit tests of the plugin: plugin/tests, in happy-dom, with `obsidian` replaced by the stub.
// The browser tests have their own config: plugin/e2e/vitest.config.ts.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
	resolve: {
		alias: { obsidian: fileURLToPath(new URL("plugin/stub/obsidian.ts", import.meta.url)) },
	},
	test: {
		include: ["plugin/tests/**/*.test.ts"],
		environment: "happy-dom",
		setupFiles: ["plugin/tests/setup.ts"],
	},
});
