// Lint: typescript-eslint (type-checked) + Obsidian's own plugin rules (eslint-plugin-obsidianmd).
import obsidianmd from "eslint-plugin-obsidianmd";
import { DEFAULT_BRANDS } from "eslint-plugin-obsidianmd/dist/lib/rules/ui/brands.js";
import { defineConfig, globalIgnores } from "eslint/config";
import globals from "globals";
import tseslint from "typescript-eslint";

/** Obsidian's own import restrictions (axios, moment...), which a rule set of ours must keep. */
const obsidianRestrictedImports = obsidianmd.configs.recommended
	.map((config) => config.rules?.["@typescript-eslint/no-restricted-imports"])
	.find(Boolean)
	.slice(1);

export default defineConfig(
	globalIgnores([
		"node_modules",
		"main.js",
		"plugin/dist",
		"dist",
		".venv",
		"sidecar",
		"tests",
		"bench",
		"examples",
		"docs",
		"package-lock.json",
		"versions.json",
		"tsconfig.json",
	]),
	{
		languageOptions: {
			globals: { ...globals.browser },
			parserOptions: {
				projectService: {
					allowDefaultProject: ["eslint.config.mjs", "esbuild.config.mjs", "plugin/scripts/*.mjs"],
				},
				tsconfigRootDir: import.meta.dirname,
				extraFileExtensions: [".json"],
			},
		},
	},
	...obsidianmd.configs.recommended,
	{
		rules: {
			// The declarative settings API is Obsidian 1.13+; this plugin supports 1.7.2, whose
			// settings tabs are built in display().
			"obsidianmd/settings-tab/prefer-setting-definitions": "off",
			// One product name in every string: "Vault Agent", as the manifest has it.
			"obsidianmd/ui/sentence-case": ["warn", { enforceCamelCaseLower: true, brands: [...DEFAULT_BRANDS, "Vault Agent"] }],
		},
	},
	{
		// The manifest as the community directory checks it (keys, types, no "Obsidian" or
		// "plugin" in the name, id or description), with Obsidian's own rule.
		files: ["manifest.json"],
		languageOptions: { parser: tseslint.parser, parserOptions: { projectService: false } },
		rules: { "obsidianmd/validate-manifest": "error" },
	},
	{
		// Only plugin/src/obsidian/ touches the Obsidian API; everything else in plugin/src is
		// plain TypeScript that vitest runs without the app (values are passed in).
		files: ["plugin/src/**/*.ts"],
		ignores: ["plugin/src/obsidian/**"],
		rules: {
			"@typescript-eslint/no-restricted-imports": [
				"error",
				...obsidianRestrictedImports,
				{
					name: "obsidian",
					message: "Only files in plugin/src/obsidian/ may use the Obsidian API: move this code there, or pass plain values in.",
				},
			],
		},
	},
	{
		// Build scripts, tests and the test stub run in Node or stand in for Obsidian itself:
		// the rules for code that runs inside Obsidian (its DOM helpers, popout windows,
		// requestUrl, sentence case of UI text) don't apply; typescript-eslint's still do.
		files: ["*.mjs", "*.config.ts", "plugin/scripts/**", "plugin/tests/**", "plugin/e2e/**", "plugin/stub/**"],
		languageOptions: { globals: { ...globals.node, ...globals.browser } },
		rules: {
			...Object.fromEntries(
				Object.keys(obsidianmd.rules).map((rule) => [`obsidianmd/${rule}`, "off"]),
			),
			"no-restricted-globals": "off",
		},
	},
);
