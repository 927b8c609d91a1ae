/**
 * The harness page's script (bundled to plugin/dist/harness.js): it plays Obsidian for the
 * built plugin. It builds the fake app from the example vault, evaluates main.js the way
 * Obsidian does (a CommonJS module whose `require("obsidian")` gets the stub), loads the plugin
 * and opens its pane. `window.harness` exposes what the browser test asserts on.
 */
import * as obsidian from "../stub/obsidian";
import { createFakeApp, type FakeApp, type FakeNote } from "../stub/app";

export interface HarnessOptions {
	notes: FakeNote[];
	resolvedLinks: Record<string, Record<string, number>>;
	activePath: string;
	settings: Record<string, unknown>;
}

interface LoadedPlugin extends obsidian.Plugin {
	openAskView(subject: null): Promise<void>;
	settings: Record<string, unknown>;
}

type PluginClass = new (app: FakeApp, manifest: unknown) => LoadedPlugin;

export interface Harness {
	app: FakeApp;
	plugin: LoadedPlugin;
	notices: string[];
	/** Each distinct text the streaming element showed, with whether the answer was rendered. */
	streamed: { text: string; answerRendered: boolean }[];
	/** The `obsidian` stub main.js was given (a test may swap its renderer). */
	obsidian: typeof obsidian;
}

declare global {
	interface Window {
		startHarness(options: HarnessOptions): Promise<void>;
		harness: Harness;
	}
}

window.startHarness = async (options: HarnessOptions) => {
	const root = document.getElementById("app") ?? document.body;
	const editor = root.createDiv({ cls: "harness-editor" });
	const note = options.notes.find((n) => n.path === options.activePath);
	editor.createDiv({ cls: "harness-title", text: options.activePath.replace(/\.md$/, "").split("/").pop() ?? "" });
	const body = note?.content.replace(/^---[\s\S]*?---\n/, "").replace(/^# .*\n+/, "") ?? "";
	editor.createEl("pre", { cls: "harness-note", text: body });

	const app = createFakeApp({
		notes: options.notes,
		resolvedLinks: options.resolvedLinks,
		activePath: options.activePath,
		root,
		pluginData: { "vault-agent": options.settings },
	});
	const manifest = (await fetch("/manifest.json").then((r) => r.json())) as unknown;
	// main.js is a CommonJS module, as Obsidian loads it: give it `module`, `exports` and a
	// `require` that returns the stub for "obsidian", then run it as a plain script.
	const module = { exports: {} as Record<string, unknown> };
	const require = (name: string): unknown => {
		if (name === "obsidian") return obsidian;
		return {}; // Node built-ins (child_process): not used unless the sidecar is auto-started
	};
	Object.assign(window, { module, exports: module.exports, require });
	await new Promise((resolve, reject) => {
		const script = document.createElement("script");
		script.src = "/main.js";
		script.onload = resolve;
		script.onerror = () => reject(new Error("main.js did not load"));
		document.head.appendChild(script);
	});
	const Plugin = (module.exports.default ?? module.exports) as PluginClass;
	const plugin = new Plugin(app, manifest);
	await (plugin.load() as unknown as Promise<void>);
	app.finishLayout();
	await plugin.openAskView(null);

	const streamed: Harness["streamed"] = [];
	new MutationObserver(() => {
		const text = app.sidebarEl.querySelector(".vault-agent-stream")?.textContent ?? "";
		const answerRendered = (app.sidebarEl.querySelector(".vault-agent-answer")?.childElementCount ?? 0) > 0;
		const last = streamed.at(-1);
		if (text && (text !== last?.text || answerRendered !== last.answerRendered)) streamed.push({ text, answerRendered });
	}).observe(app.sidebarEl, { subtree: true, childList: true, characterData: true });

	window.harness = { app, plugin, notices: obsidian.Notice.shown, streamed, obsidian };
};
