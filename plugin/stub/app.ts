/**
 * A fake `App` for the stub: a vault of in-memory notes, their resolved links, a workspace with
 * a right sidebar, and records of what the plugin asked of it (links opened, hover previews,
 * notices). Used by unit tests and by the e2e harness page.
 */
import { MarkdownView, TFile, WorkspaceLeaf, type View } from "./obsidian";

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
}

export function createFakeApp(options: FakeAppOptions = {}) {
	const root = options.root ?? document.body;
	const files = new Map((options.notes ?? []).map((note) => [note.path, note]));
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
	const hovers: { linktext: string; sourcePath: string; source: string }[] = [];
	let activePath = options.activePath ?? null;
	let layoutReady = false;
	const onLayoutReady: (() => void)[] = [];

	const app = {
		viewRegistry: {} as Record<string, (leaf: WorkspaceLeaf) => View>,
		hoverLinkSources: {} as Record<string, { display: string; defaultMod: boolean }>,
		commands: {
			commands: {} as Record<string, { id: string; name: string; [key: string]: unknown }>,
		},
		settingTabs: [] as unknown[],
		pluginData: options.pluginData ?? {},
		statusBarEl,
		ribbonEl,
		sidebarEl,
		opened,
		hovers,
		setActivePath(path: string | null) {
			activePath = path;
		},
		/** Run the plugin's onLayoutReady callbacks (a test swaps in fakes before this). */
		finishLayout() {
			layoutReady = true;
			for (const callback of onLayoutReady.splice(0)) callback();
		},
		/** Open `path` in an editor holding `content` (unsaved edits). */
		openInEditor(path: string, content: string) {
			editors.push({ view: new MarkdownView(tfile(path), { getValue: () => content }) });
		},
		workspace: {
			getLeavesOfType: (type: string) =>
				type === "markdown" ? editors : leaves.filter((leaf) => leaf.view?.getViewType() === type),
			getRightLeaf: () => {
				const leaf = new WorkspaceLeaf(app, sidebarEl);
				leaves.push(leaf);
				return leaf;
			},
			revealLeaf: async () => {},
			getActiveFile: () => (activePath ? tfile(activePath) : null),
			onLayoutReady: (callback: () => void) => {
				if (layoutReady) callback();
				else onLayoutReady.push(callback);
			},
			openLinkText: async (linktext: string, sourcePath: string, newLeaf?: unknown) => {
				opened.push({ linktext, sourcePath, newLeaf: newLeaf ?? false });
			},
			trigger: (name: string, data: { linktext: string; sourcePath: string; source: string }) => {
				if (name === "hover-link") hovers.push({ linktext: data.linktext, sourcePath: data.sourcePath, source: data.source });
			},
		},
		vault: {
			adapter: {},
			getAbstractFileByPath: (path: string) => tfile(path),
			cachedRead: async (file: TFile) => files.get(file.path)?.content ?? "",
		},
		metadataCache: {
			resolvedLinks: options.resolvedLinks ?? {},
		},
	};
	return app;
}

export type FakeApp = ReturnType<typeof createFakeApp>;
