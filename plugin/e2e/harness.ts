/**
 * The harness page's script (bundled to plugin/dist/harness.js): it plays Obsidian for the
 * built plugin. It builds the fake app from the example vault (the active note open in an
 * editor), evaluates main.js the way Obsidian does (a CommonJS module whose `require("obsidian")`
 * gets the stub), loads the plugin and opens its pane. `window.harness` exposes what the browser
 * tests assert on, and drives what a user would do outside the pane (select text, switch notes,
 * reload the plugin).
 *
 * `require("child_process")` is a bridge to the test process: `spawn` really runs the command
 * there (through `window.nodeSpawn`, which the test exposes) and reports whether it started,
 * so "command not found" is the operating system's answer, not a stub's.
 */
import * as obsidian from "../stub/obsidian";
import { createFakeApp, type FakeApp, type FakeNote } from "../stub/app";
import { DEVICE_KEYS, DEVICE_STORAGE_KEY } from "../src/settings";

const isDeviceKey = (key: string): boolean => (DEVICE_KEYS as readonly string[]).includes(key);
const pick = (settings: Record<string, unknown>, keep: (key: string) => boolean) =>
	Object.fromEntries(Object.entries(settings).filter(([key]) => keep(key)));

export interface HarnessOptions {
	notes: FakeNote[];
	resolvedLinks: Record<string, Record<string, number>>;
	activePath: string;
	settings: Record<string, unknown>;
}

interface LoadedPlugin extends obsidian.Plugin {
	openAskView(subject: null): Promise<void>;
	openRelatedView(): Promise<void>;
	settings: Record<string, unknown>;
}

type PluginClass = new (app: FakeApp, manifest: unknown) => LoadedPlugin;

export interface Harness {
	app: FakeApp;
	plugin: LoadedPlugin;
	notices: string[];
	/** Each distinct text a streaming answer showed, before its final answer. */
	streamed: string[];
	/** Unload the plugin and load it again, as Obsidian does on restart, with its data. */
	reload(): Promise<void>;
	/** "Ask about selection" with `text` selected in the active note's editor. */
	askAboutSelection(text: string): void;
	/** Open another note (the active leaf changes). */
	setActive(path: string): void;
	/** The `obsidian` stub main.js was given (a test may swap its renderer). */
	obsidian: typeof obsidian;
}

declare global {
	interface Window {
		startHarness(options: HarnessOptions): Promise<void>;
		harness: Harness;
		nodeSpawn?: (program: string, args: string[]) => Promise<{ pid?: number; error?: { code: string; message: string } }>;
	}
}

/** Just enough of a ChildProcess for the plugin: events, and kill. */
class BridgedChild {
	pid: number | undefined;
	private readonly listeners = new Map<string, ((...args: unknown[]) => void)[]>();
	readonly stdout = { on: () => {} };
	readonly stderr = { on: () => {} };
	on(event: string, listener: (...args: unknown[]) => void): this {
		this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
		return this;
	}
	emit(event: string, ...args: unknown[]): void {
		for (const listener of this.listeners.get(event) ?? []) listener(...args);
	}
	kill(): boolean {
		return true;
	}
}

const childProcess = {
	spawn(program: string, args: string[]): BridgedChild {
		const child = new BridgedChild();
		type Result = Awaited<ReturnType<NonNullable<Window["nodeSpawn"]>>>;
		const run = window.nodeSpawn ?? (async (): Promise<Result> => ({ error: { code: "ENOSYS", message: "no process bridge" } }));
		void run(program, [...args]).then((result) => {
			if (result.error) child.emit("error", Object.assign(new Error(result.error.message), { code: result.error.code }));
			else {
				child.pid = result.pid;
				child.emit("spawn");
			}
		});
		return child;
	},
};

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
		// As the user left them: the token and how to start the sidecar on this device.
		pluginData: { "vault-agent": pick(options.settings, (key) => !isDeviceKey(key)) },
		localStorage: { [DEVICE_STORAGE_KEY]: pick(options.settings, isDeviceKey) },
	});
	Object.assign(app.vault, { adapter: new obsidian.FileSystemAdapter("/vault") });
	app.openInEditor(options.activePath, note?.content ?? "");
	const manifest = (await fetch("/manifest.json").then((r) => r.json())) as unknown;
	// main.js is a CommonJS module, as Obsidian loads it: give it `module`, `exports`, a
	// `require` that returns the stub for "obsidian", and Node's `process` as far as it is used.
	const module = { exports: {} as Record<string, unknown> };
	const require = (name: string): unknown => {
		if (name === "obsidian") return obsidian;
		if (name === "child_process") return childProcess;
		return {};
	};
	Object.assign(window, { module, exports: module.exports, require, process: { env: {}, kill: () => {} } });
	await new Promise((resolve, reject) => {
		const script = document.createElement("script");
		script.src = "/main.js";
		script.onload = resolve;
		script.onerror = () => reject(new Error("main.js did not load"));
		document.head.appendChild(script);
	});
	const Plugin = (module.exports.default ?? module.exports) as PluginClass;
	const load = async (): Promise<LoadedPlugin> => {
		const plugin = new Plugin(app, manifest);
		await (plugin.load() as unknown as Promise<void>);
		app.finishLayout();
		await plugin.openAskView(null);
		return plugin;
	};

	const streamed: string[] = [];
	new MutationObserver(() => {
		const streaming = app.sidebarEl.querySelector(".vault-agent-answer.is-streaming");
		const text = streaming?.textContent ?? "";
		if (text && text !== streamed.at(-1)) streamed.push(text);
	}).observe(app.sidebarEl, { subtree: true, childList: true, characterData: true, attributes: true });

	window.harness = {
		app,
		plugin: await load(),
		notices: obsidian.Notice.shown,
		streamed,
		obsidian,
		async reload() {
			// Obsidian closes the plugin's views with it, and opens them again from the new one.
			window.harness.plugin.unload();
			for (const type of ["vault-agent-ask", "vault-agent-related"]) app.workspace.detachLeavesOfType(type);
			window.harness.plugin = await load();
		},
		askAboutSelection(text: string) {
			const command = app.commands.commands["vault-agent:ask-about-selection"] as unknown as {
				editorCallback(editor: { getSelection(): string }, context: { file: { path: string } }): void;
			};
			command.editorCallback({ getSelection: () => text }, { file: { path: options.activePath } });
		},
		setActive(path: string) {
			app.setActivePath(path);
		},
	};
};
