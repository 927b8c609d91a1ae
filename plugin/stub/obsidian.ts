/**
 * A minimal stand-in for the `obsidian` module, for unit tests (vitest aliases `obsidian` here)
 * and for the e2e harness page (bundled with it, handed to main.js as `require("obsidian")`).
 *
 * It is not a faithful Obsidian: it has exactly the symbols the plugin uses, each doing the
 * least that lets a test observe the plugin. A symbol is added when a test needs it. The app
 * object (workspace, vault, metadata cache) is built by ./app.ts.
 */
import { createElement, icons } from "lucide";
import { installDomHelpers } from "./dom";

installDomHelpers();

/** What the stub's classes use of the app (./app.ts builds one). */
export interface StubApp {
	viewRegistry: Record<string, (leaf: WorkspaceLeaf) => View>;
	hoverLinkSources: Record<string, { display: string; defaultMod: boolean }>;
	commands: { commands: Record<string, { id: string; name: string }> };
	settingTabs: unknown[];
	pluginData: Record<string, unknown>;
	ribbonEl: HTMLElement;
	statusBarEl: HTMLElement;
}

export class Component {
	private loaded = false;
	private children: Component[] = [];
	private cleanups: (() => void)[] = [];

	/** Returns what onload returned, so a test can await an async onload. */
	load(): void | Promise<void> {
		if (this.loaded) return;
		this.loaded = true;
		const loading = this.onload();
		for (const child of this.children) void child.load();
		return loading;
	}

	unload(): void {
		if (!this.loaded) return;
		this.loaded = false;
		for (const child of this.children.splice(0)) child.unload();
		for (const cleanup of this.cleanups.splice(0)) cleanup();
		this.onunload();
	}

	onload(): void | Promise<void> {}
	onunload(): void {}

	addChild<T extends Component>(child: T): T {
		this.children.push(child);
		if (this.loaded) void child.load();
		return child;
	}

	removeChild<T extends Component>(child: T): T {
		this.children = this.children.filter((c) => c !== child);
		child.unload();
		return child;
	}

	register(cleanup: () => void): void {
		this.cleanups.push(cleanup);
	}

	registerDomEvent(el: EventTarget, type: string, callback: (evt: never) => unknown): void {
		const listener = callback as unknown as EventListener;
		el.addEventListener(type, listener);
		this.register(() => el.removeEventListener(type, listener));
	}

	registerInterval(id: number): number {
		this.register(() => window.clearInterval(id));
		return id;
	}

	registerEvent(ref: { off?: () => void }): void {
		this.register(() => ref.off?.());
	}
}

/**
 * Icons, as Obsidian draws them: lucide's, by kebab-case name ("send-horizontal"), drawn by the
 * `lucide` package itself; `data-icon` names it for tests. An unknown name draws an empty svg.
 */
export function setIcon(el: HTMLElement, icon: string): void {
	el.empty();
	const name = icon.replace(/(^|-)([a-z0-9])/g, (_match: string, _dash: string, char: string) => char.toUpperCase());
	const node = (icons as Record<string, Parameters<typeof createElement>[0]>)[name];
	const svg = node ? createElement(node) : el.ownerDocument.createElementNS("http://www.w3.org/2000/svg", "svg");
	svg.setAttribute("class", `svg-icon lucide-${icon}`);
	svg.setAttribute("data-icon", icon);
	svg.setAttribute("width", "16");
	svg.setAttribute("height", "16");
	el.appendChild(svg);
}

/** Like Obsidian: the tooltip is the element's aria-label. */
export function setTooltip(el: HTMLElement, tooltip: string): void {
	el.setAttribute("aria-label", tooltip);
}

export interface Debouncer<T extends unknown[]> {
	(...args: T): void;
	cancel(): this;
	run(): void;
}

/** Obsidian's debounce: runs `callback` `timeout` ms after the first (or, with `resetTimer`, the last) call. */
export function debounce<T extends unknown[]>(callback: (...args: T) => unknown, timeout = 0, resetTimer = false): Debouncer<T> {
	let timer: ReturnType<typeof setTimeout> | null = null;
	let last: T | null = null;
	const run = () => {
		timer = null;
		const args = last;
		last = null;
		if (args) callback(...args);
	};
	const debounced = ((...args: T) => {
		last = args;
		if (timer !== null && resetTimer) {
			clearTimeout(timer);
			timer = null;
		}
		timer ??= setTimeout(run, timeout);
	}) as Debouncer<T>;
	debounced.cancel = () => {
		if (timer !== null) clearTimeout(timer);
		timer = null;
		last = null;
		return debounced;
	};
	debounced.run = () => {
		if (timer !== null) clearTimeout(timer);
		run();
	};
	return debounced;
}

export function normalizePath(path: string): string {
	const cleaned = path.replace(/\\/g, "/").replace(/\/+/g, "/").replace(/^\/|\/$/g, "");
	return cleaned === "" ? "/" : cleaned;
}

export class Notice {
	/** Every notice shown, for assertions. */
	static shown: string[] = [];
	constructor(readonly message: string) {
		Notice.shown.push(message);
	}
}

export const Platform = { isDesktop: true, isDesktopApp: true, isMobile: false, isWin: false, isMacOS: false };

export class TFile {
	readonly basename: string;
	readonly extension: string;
	readonly name: string;
	constructor(
		readonly path: string,
		readonly stat: { size: number; mtime: number; ctime: number } = { size: 0, mtime: 0, ctime: 0 },
	) {
		this.name = path.split("/").pop() ?? path;
		const dot = this.name.lastIndexOf(".");
		this.extension = dot === -1 ? "" : this.name.slice(dot + 1);
		this.basename = dot === -1 ? this.name : this.name.slice(0, dot);
	}
}

export class TFolder {
	readonly name: string;
	constructor(readonly path: string) {
		this.name = path.split("/").pop() ?? path;
	}
}

export class FileSystemAdapter {
	constructor(private readonly basePath: string) {}
	getBasePath(): string {
		return this.basePath;
	}
}

export const Keymap = {
	/** Like Obsidian: Ctrl/Cmd opens a new tab. */
	isModEvent(evt: MouseEvent | KeyboardEvent): false | "tab" {
		return evt.ctrlKey || evt.metaKey ? "tab" : false;
	},
};

export class WorkspaceLeaf {
	view: View | null = null;
	readonly containerEl: HTMLElement;
	constructor(
		readonly app: StubApp,
		parent: HTMLElement,
	) {
		this.containerEl = parent.createDiv({ cls: "workspace-leaf" });
	}

	async setViewState(state: { type: string; active?: boolean }): Promise<void> {
		const create = this.app.viewRegistry[state.type];
		if (!create) throw new Error(`no view registered for ${state.type}`);
		const view = create(this);
		this.view = view;
		this.containerEl.appendChild(view.containerEl);
		await view.load();
		await view.onOpen();
	}

	async loadIfDeferred(): Promise<void> {}

	getViewState(): { type: string } {
		return { type: this.view?.getViewType() ?? "empty" };
	}
}

export abstract class View extends Component {
	readonly app: StubApp;
	readonly containerEl: HTMLElement;
	constructor(readonly leaf: WorkspaceLeaf) {
		super();
		this.app = leaf.app;
		this.containerEl = leaf.containerEl.ownerDocument.createElement("div");
		this.containerEl.addClass("view-content-container");
	}
	abstract getViewType(): string;
	abstract getDisplayText(): string;
	getIcon(): string {
		return "";
	}
	async onOpen(): Promise<void> {}
	async onClose(): Promise<void> {}
}

export abstract class ItemView extends View {
	readonly contentEl: HTMLElement;
	constructor(leaf: WorkspaceLeaf) {
		super(leaf);
		this.containerEl.createDiv({ cls: "view-header" });
		this.contentEl = this.containerEl.createDiv({ cls: "view-content" });
	}
}

export class MarkdownView {
	constructor(
		readonly file: TFile | null,
		readonly editor: { getValue(): string; replaceSelection(text: string): void },
	) {}
	getViewType(): string {
		return "markdown";
	}
}

export const MarkdownRenderer = {
	/**
	 * A tiny markdown renderer: headings, list items, paragraphs; `[[target|alias]]` as
	 * `a.internal-link` with `data-href` (as Obsidian renders them), `**bold**`, `*em*`,
	 * `` `code` ``, `[text](url)` and `![alt](src)` (an <img>: tests check none survives).
	 */
	async render(_app: StubApp, markdown: string, el: HTMLElement, _sourcePath: string, _component: Component): Promise<void> {
		let paragraph: string[] = [];
		let list: HTMLElement | null = null;
		const flush = () => {
			if (paragraph.length > 0) renderInline(el.createEl("p"), paragraph.join("\n"));
			paragraph = [];
		};
		for (const line of markdown.split("\n")) {
			const item = /^\s*[-*]\s+(.*)$/.exec(line);
			const heading = /^(#{1,6})\s+(.*)$/.exec(line);
			if (item) {
				flush();
				list ??= el.createEl("ul");
				renderInline(list.createEl("li"), item[1] ?? "");
				continue;
			}
			list = null;
			if (heading) {
				flush();
				renderInline(el.createEl(`h${heading[1]?.length ?? 1}` as "h1"), heading[2] ?? "");
			} else if (line.trim() === "") {
				flush();
			} else {
				paragraph.push(line);
			}
		}
		flush();
	},
};

const INLINE =
	/\[\[([^\]|]+)(?:\|([^\]]+))?\]\]|!\[([^\]]*)\]\(([^)\s]+)[^)]*\)|\[([^\]]+)\]\(([^)\s]+)\)|\*\*([^*]+)\*\*|\*([^*]+)\*|\b_([^_]+)_\b|`([^`]+)`|&lt;/g;

function renderInline(el: HTMLElement, text: string): void {
	let last = 0;
	for (const match of text.matchAll(INLINE)) {
		const index = match.index ?? 0;
		el.appendText(text.slice(last, index));
		last = index + match[0].length;
		const [whole, target, alias, alt, src, linkText, url, bold, star, underscore, code] = match;
		const em = star ?? underscore;
		if (target !== undefined) {
			el.createEl("a", { cls: "internal-link", text: alias ?? target, href: target, attr: { "data-href": target } });
		} else if (src !== undefined) {
			el.createEl("img", { attr: { src, alt: alt ?? "" } });
		} else if (url !== undefined) {
			el.createEl("a", { cls: "external-link", text: linkText ?? url, href: url });
		} else if (bold !== undefined) {
			el.createEl("strong", { text: bold });
		} else if (em !== undefined) {
			el.createEl("em", { text: em });
		} else if (code !== undefined) {
			el.createEl("code", { text: code });
		} else if (whole === "&lt;") {
			el.appendText("<");
		}
	}
	el.appendText(text.slice(last));
}

declare global {
	interface Node {
		appendText(text: string): void;
	}
}
if (typeof Node.prototype.appendText !== "function") {
	Object.defineProperty(Node.prototype, "appendText", {
		value(this: Node, text: string) {
			if (text) this.appendChild(this.ownerDocument!.createTextNode(text));
		},
		configurable: true,
		writable: true,
	});
}

export class Plugin extends Component {
	constructor(
		readonly app: StubApp,
		readonly manifest: { id: string; name: string; version: string },
	) {
		super();
	}

	addCommand<T extends { id: string; name: string }>(command: T): T {
		this.app.commands.commands[`${this.manifest.id}:${command.id}`] = command;
		return command;
	}

	registerView(type: string, create: (leaf: WorkspaceLeaf) => View): void {
		this.app.viewRegistry[type] = create;
		this.register(() => delete this.app.viewRegistry[type]);
	}

	registerHoverLinkSource(id: string, info: { display: string; defaultMod: boolean }): void {
		this.app.hoverLinkSources[id] = info;
	}

	addRibbonIcon(icon: string, title: string, callback: (evt: MouseEvent) => unknown): HTMLElement {
		const el = this.app.ribbonEl.createDiv({ cls: "side-dock-ribbon-action", attr: { "aria-label": title, "data-icon": icon } });
		this.registerDomEvent(el, "click", callback);
		this.register(() => el.remove());
		return el;
	}

	addStatusBarItem(): HTMLElement {
		const el = this.app.statusBarEl.createDiv({ cls: "status-bar-item" });
		this.register(() => el.remove()); // as Obsidian does on unload
		return el;
	}

	addSettingTab(tab: PluginSettingTab): void {
		this.app.settingTabs.push(tab);
	}

	async loadData(): Promise<unknown> {
		return this.app.pluginData[this.manifest.id] ?? null;
	}

	async saveData(data: unknown): Promise<void> {
		this.app.pluginData[this.manifest.id] = JSON.parse(JSON.stringify(data)) as unknown;
	}
}

export abstract class PluginSettingTab {
	readonly containerEl: HTMLElement;
	constructor(
		readonly app: StubApp,
		readonly plugin: Plugin,
	) {
		this.containerEl = document.createElement("div");
	}
	abstract display(): void;
}

/** A settings row; each control records its onChange so a test can drive it. */
export class Setting {
	/** Every row made, so a test can reach a control's handlers. */
	static created: Setting[] = [];
	readonly settingEl: HTMLElement;
	name = "";
	readonly controls: { kind: string; onChange?: (value: never) => unknown; onClick?: () => unknown }[] = [];
	constructor(containerEl: HTMLElement) {
		this.settingEl = containerEl.createDiv({ cls: "setting-item" });
		Setting.created.push(this);
	}
	setName(name: string): this {
		this.name = name;
		this.settingEl.setAttr("data-name", name);
		return this;
	}
	setDesc(): this {
		return this;
	}
	setHeading(): this {
		return this;
	}
	addText(build: (text: Control) => unknown): this {
		return this.add("text", build);
	}
	addToggle(build: (toggle: Control) => unknown): this {
		return this.add("toggle", build);
	}
	addDropdown(build: (dropdown: Control) => unknown): this {
		return this.add("dropdown", build);
	}
	addSlider(build: (slider: Control) => unknown): this {
		return this.add("slider", build);
	}
	addButton(build: (button: Control) => unknown): this {
		return this.add("button", build);
	}
	addExtraButton(build: (button: Control) => unknown): this {
		return this.add("extra-button", build);
	}
	private add(kind: string, build: (control: Control) => unknown): this {
		const record: (typeof this.controls)[number] = { kind };
		const control: Control = new Proxy({} as Control, {
			get: (_target, name) => {
				if (name === "inputEl") return this.settingEl.createEl("input");
				return (arg: never) => {
					if (name === "onChange") record.onChange = arg;
					if (name === "onClick") record.onClick = arg;
					return control;
				};
			},
		});
		this.controls.push(record);
		build(control);
		return this;
	}
}

type Control = Record<string, (...args: never[]) => Control> & { inputEl: HTMLInputElement };

interface RequestUrlParam {
	url: string;
	method?: string;
	headers?: Record<string, string>;
	body?: string;
	throw?: boolean;
}

/** `requestUrl` through fetch (the real one goes through Electron's network stack, no CORS). */
export async function requestUrl(request: RequestUrlParam): Promise<{ status: number; text: string; json: unknown }> {
	const response = await fetch(request.url, {
		method: request.method ?? "GET",
		...(request.headers ? { headers: request.headers } : {}),
		...(request.body === undefined ? {} : { body: request.body }),
	});
	const text = await response.text();
	if (request.throw !== false && response.status >= 400) throw new Error(`Request failed, status ${response.status}`);
	return {
		status: response.status,
		text,
		get json(): unknown {
			return JSON.parse(text) as unknown;
		},
	};
}
