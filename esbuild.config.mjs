// Bundles the plugin (plugin/src/obsidian/main.ts -> main.js at the repository root, as Obsidian expects)
// and, for the browser tests, the e2e harness (plugin/e2e/harness.ts -> plugin/dist/harness.js).
// `node esbuild.config.mjs` watches; `node esbuild.config.mjs production` builds once, minified.
import esbuild from "esbuild";
import { builtinModules } from "node:module";
import process from "node:process";

const production = process.argv[2] === "production";

const banner = `/*
Vault Agent: Obsidian plugin bundle, built with esbuild from plugin/src (see the repository).
*/`;

/** @type {import("esbuild").BuildOptions} */
const plugin = {
	banner: { js: banner },
	entryPoints: ["plugin/src/obsidian/main.ts"],
	bundle: true,
	external: [
		"obsidian",
		"electron",
		"@codemirror/autocomplete",
		"@codemirror/collab",
		"@codemirror/commands",
		"@codemirror/language",
		"@codemirror/lint",
		"@codemirror/search",
		"@codemirror/state",
		"@codemirror/view",
		"@lezer/common",
		"@lezer/highlight",
		"@lezer/lr",
		...builtinModules,
		...builtinModules.map((name) => `node:${name}`),
	],
	format: "cjs",
	target: "es2021",
	logLevel: "info",
	sourcemap: production ? false : "inline",
	treeShaking: true,
	minify: production,
	outfile: "main.js",
};

/** The harness page's script: the `obsidian` stub and a fake app (see plugin/e2e/README.md). */
const harness = {
	entryPoints: ["plugin/e2e/harness.ts"],
	bundle: true,
	format: "iife",
	target: "es2021",
	logLevel: "info",
	outfile: "plugin/dist/harness.js",
};

if (production) {
	await esbuild.build(plugin);
	await esbuild.build(harness);
} else {
	const context = await esbuild.context(plugin);
	await context.watch();
}
