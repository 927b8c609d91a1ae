/**
 * A fake `App` for the stub: a vault of in-memory notes, their resolved links, a workspace with
 * a right sidebar and an editor, and records of what the plugin asked of it (links opened, hover
 * previews, notes created, text inserted, the settings opened). Used by unit tests and by the
 * e2e harness page.
 */
import { MarkdownView, TFile, TFolder, WorkspaceLeaf, type View } from "./obsidian";

export interface FakeNote {
	path: string;
	content: string;
}

export interface OpenedLink {
	linktext: string;
	sourcePath: string;
	newLeaf: unknown;
}

export interface FakeAppOptions {
	notes?: FakeNote[];
	/** source path -> target path -> count (Obsidian's `metadataCache.resolvedLinks`). */
	resolvedLinks?: Record<string, Record<string, number>>;
	activePath?: string | null;
	/** Where leaves, the status bar and the ribbon go (default: document.body). */
	root?: HTMLElement;
	pluginData?: Record<string, unknown>;
	/** What `saveLocalStorage` kept on this device for this vault (another device: empty). */
	localStorage?: Record<string, unknown>;
}

type Listener = (...args: unknown[]) => unknown;

export function createFakeApp(options: FakeAppOptions = {}) {
	const root = options.root ?? document.body;
	const files = new Map((options.notes ?? []).map((note) => [note.path, note]));
	const folders = new Set<string>();
	for (const path of files.keys()) {
		const parts = path.split("/").slice(0, -1);
		for (let i = 1; i <= parts.length; i++) folders.add(parts.slice(0, i).join("/"));
	}
	const tfile = (path: string) => {
		const note = files.get(path);
		return note ? new TFile(path, { size: note.content.length, mtime: 0, ctime: 0 }) : null;
	};
	const sidebarEl = root.createDiv({ cls: "workspace-split mod-right-split" });
	const statusBarEl = root.createDiv({ cls: "status-bar" });
	const ribbonEl = root.createDiv({ cls: "side-dock-ribbon" });
	const leaves: WorkspaceLeaf[] = [];
	const editors: { view: MarkdownView }[] = [];
	const opened: OpenedLink[] = [];
	const openedFiles: string[] = [];
	const hovers: { linktext: string; sourcePath: string; source: string }[] = [];
	const inserted: { path: string; text: string }[] = [];
	const settingsOpened: string[] = [];
	const listeners = new Map<string, Set<Listener>>();
	let activePath = options.activePath ?? null;
	let layoutReady = false;
	const onLayoutReady: (() => void)[] = [];

	const trigger = (name: string, ...args: unknown[]) => {
		for (const listener of listeners.get(name) ?? []) listener(...args);
	};

	const app = {
		viewRegistry: {} as Record<string, (leaf: WorkspaceLeaf) => View>,
		hoverLinkSources: {} as Record<string, { display: string; defaultMod: boolean }>,
		commands: {
			commands: {} as Record<string, { id: string; name: string; [key: string]: unknown }>,
		},
		settingTabs: [] as unknown[],
		pluginData: options.pluginData ?? {},
		localStorage: options.localStorage ?? {},
		loadLocalStorage(key: string): unknown {
			return key in app.localStorage ? (JSON.parse(JSON.stringify(app.localStorage[key])) as unknown) : null;
		},
		saveLocalStorage(key: string, data: unknown): void {
			if (data === null) delete app.localStorage[key];
			else app.localStorage[key] = JSON.parse(JSON.stringify(data)) as unknown;
		},
		statusBarEl,
		ribbonEl,
		sidebarEl,
		opened,
		openedFiles,
		hovers,
		inserted,
		settingsOpened,
		/** Notes as the vault holds them now (created ones included). */
		files,
		/** Make `path` the active note, as Obsidian does when a note is opened. */
		setActivePath(path: string | null) {
			activePath = path;
			trigger("file-open", path ? tfile(path) : null);
			trigger("active-leaf-change", null);
		},
		/** Run the plugin's onLayoutReady callbacks (a test swaps in fakes before this). */
		finishLayout() {
			layoutReady = true;
			for (const callback of onLayoutReady.splice(0)) callback();
		},
		/** Open `path` in an editor holding `content` (unsaved edits); the most recent leaf. */
		openInEditor(path: string, content: string) {
			const editor = {
				getValue: () => content,
				replaceSelection: (text: string) => inserted.push({ path, text }),
			};
			editors.push({ view: new MarkdownView(tfile(path), editor) });
		},
		setting: {
			open: () => settingsOpened.push("open"),
			openTabById: (id: string) => settingsOpened.push(id),
		},
		workspace: {
			getLeavesOfType: (type: string) =>
				type === "markdown" ? editors : leaves.filter((leaf) => leaf.view?.getViewType() === type),
			getRightLeaf: () => {
				const leaf = new WorkspaceLeaf(app, sidebarEl);
				leaves.push(leaf);
				return leaf;
			},
			getMostRecentLeaf: () => editors.at(-1) ?? null,
			detachLeavesOfType: (type: string) => {
				for (const leaf of leaves.filter((l) => l.view?.getViewType() === type)) {
					leaf.view?.unload();
					leaf.containerEl.remove();
					leaves.splice(leaves.indexOf(leaf), 1);
				}
			},
			getLeaf: () => ({
				openFile: async (file: TFile) => {
					openedFiles.push(file.path);
				},
			}),
			revealLeaf: async () => {},
			getActiveFile: () => (activePath ? tfile(activePath) : null),
			onLayoutReady: (callback: () => void) => {
				if (layoutReady) callback();
				else onLayoutReady.push(callback);
			},
			openLinkText: async (linktext: string, sourcePath: string, newLeaf?: unknown) => {
				opened.push({ linktext, sourcePath, newLeaf: newLeaf ?? false });
			},
			on: (name: string, callback: Listener) => {
				let set = listeners.get(name);
				if (!set) listeners.set(name, (set = new Set()));
				set.add(callback);
				return { off: () => set.delete(callback) };
			},
			trigger: (name: string, data: { linktext: string; sourcePath: string; source: string }) => {
				if (name === "hover-link") hovers.push({ linktext: data.linktext, sourcePath: data.sourcePath, source: data.source });
				trigger(name, data);
			},
		},
		vault: {
			adapter: {},
			getAbstractFileByPath: (path: string) => tfile(path) ?? (folders.has(path) ? new TFolder(path) : null),
			cachedRead: async (file: TFile) => files.get(file.path)?.content ?? "",
			getAllLoadedFiles: () => [
				...[...files.keys()].map((path) => tfile(path)!),
				...[...folders].map((path) => new TFolder(path)),
			],
			create: async (path: string, content: string) => {
				// As on macOS and Windows, whose file systems ignore case.
				const lower = path.toLowerCase();
				if ([...files.keys()].some((taken) => taken.toLowerCase() === lower)) {
					throw new Error(`File already exists: ${path}`);
				}
				files.set(path, { path, content });
				return tfile(path)!;
			},
			createFolder: async (path: string) => {
				// As on macOS and Windows, whose file systems ignore case.
				if ([...folders, ...files.keys()].some((taken) => taken.toLowerCase() === path.toLowerCase())) {
					throw new Error(`Folder already exists: ${path}`);
				}
				folders.add(path);
			},
		},
		fileManager: {
			/** Obsidian's default: a wikilink by path, without the .md. */
			generateMarkdownLink: (file: TFile) => `[[${file.path.replace(/\.md$/, "")}]]`,
		},
		metadataCache: {
			resolvedLinks: options.resolvedLinks ?? {},
		},
	};
	return app;
}

export type FakeApp = ReturnType<typeof createFakeApp>;
