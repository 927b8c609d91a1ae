/**
 * Vault Agent for Obsidian: the plugin object. It wires the parts together and is the only
 * place that reads the app's state for a question (active note, editor content, links):
 *
 * - the side pane (view.ts) and the related notes view (related-view.ts), the commands
 *   (commands.ts), the settings tab (settings-tab.ts), the status bar (status-bar.ts);
 * - the sidecar client (client.ts): `requestUrl` for JSON calls, `fetch` for the answer stream;
 * - optionally the sidecar process itself (sidecar-process.ts), stopped on unload;
 * - the plugin's data: the settings and the saved conversations in data.json, except the
 *   token and how to start the sidecar, which stay on the device (settings.ts, DEVICE_KEYS).
 */
import { spawn } from "child_process";
import { FileSystemAdapter, MarkdownView, Notice, Platform, Plugin, TFile, requestUrl } from "obsidian";
import { SidecarClient, SidecarError, type HttpRequester } from "../client";
import type { QuestionContext, Subject } from "../context";
import { asRecord } from "../records";
import { normaliseConversations, remove, rename, upsert, type Conversation } from "../conversations";
import type { IndexResponse } from "../generated/contract";
import { neighbourhood } from "../neighbourhood";
import { describeProblem, type Problem, type ProblemAction } from "../problems";
import {
	normaliseSettings,
	parseSidecarUrl,
	splitSettings,
	vaultAsksToStart,
	DEFAULT_PORT,
	DEVICE_STORAGE_KEY,
	type VaultAgentSettings,
} from "../settings";
import { SidecarProcess } from "../sidecar-process";
import { indexWarning } from "../status";
import { registerCommands, type CommandHost } from "./commands";
import { RelatedView, VIEW_TYPE_RELATED, type RelatedHost } from "./related-view";
import { VaultAgentSettingTab, type SettingsHost } from "./settings-tab";
import { StatusBar } from "./status-bar";
import { insertAtCursor, saveConversationNote } from "./vault-writes";
import { AskView, VIEW_TYPE_ASK, type AskHost } from "./view";

/** A notice with the same text is not shown again within this time. */
const NOTICE_QUIET_MS = 10_000;
const NOTICE_MS = 10_000;

const obsidianRequest: HttpRequester = async (request) => {
	const response = await requestUrl({
		url: request.url,
		method: request.method,
		headers: request.headers,
		...(request.body === undefined ? {} : { body: request.body }),
		throw: false,
	});
	return { status: response.status, text: response.text };
};

/** Obsidian's settings window (not in the public typings, present since 0.9). */
interface SettingsWindow {
	setting?: { open(): void; openTabById(id: string): void };
}

export default class VaultAgentPlugin extends Plugin implements AskHost, CommandHost, SettingsHost, RelatedHost {
	settings: VaultAgentSettings = normaliseSettings({});
	conversations: Conversation[] = [];
	client!: SidecarClient;
	private sidecar!: SidecarProcess;
	private statusBar!: StatusBar;
	private index: IndexResponse | null = null;
	private missing = false;
	private readonly listeners = new Set<() => void>();
	private recentNotices = new Map<string, number>();

	override async onload(): Promise<void> {
		await this.loadSettings();
		this.client = new SidecarClient(
			() => ({ url: this.settings.sidecarUrl, token: this.settings.token }),
			obsidianRequest,
			(input, init) => window.fetch(input, init),
		);
		this.sidecar = new SidecarProcess(
			spawn,
			(pid, signal) => process.kill(pid, signal),
			Platform.isWin ? "win32" : "posix",
			(message, notFound) => {
				this.setMissing(notFound);
				if (!notFound) this.notify(`Vault Agent sidecar ${message}`);
			},
			() => this.setMissing(false),
		);

		this.registerView(VIEW_TYPE_ASK, (leaf) => new AskView(leaf, this));
		this.registerView(VIEW_TYPE_RELATED, (leaf) => new RelatedView(leaf, this));
		this.registerHoverLinkSource(VIEW_TYPE_ASK, { display: "Vault Agent", defaultMod: true });
		this.registerHoverLinkSource(VIEW_TYPE_RELATED, { display: "Vault Agent: related notes", defaultMod: true });
		this.addRibbonIcon("message-square", "Ask vault", () => void this.openAskView(null));
		registerCommands(this);
		this.addSettingTab(new VaultAgentSettingTab(this.app, this));
		this.statusBar = new StatusBar(this, {
			index: () => this.client.index(),
			sidecarStarting: () => this.sidecar.running,
			reportWrongToken: (error) => this.problemOf(error),
			onChange: (status) => {
				this.index = status;
				this.changed();
			},
		});
		// Quitting Obsidian may close the window without unloading plugins: stop the sidecar then too.
		this.registerDomEvent(window, "beforeunload", () => this.sidecar.stop());

		this.app.workspace.onLayoutReady(() => {
			void this.applyAutoStart();
			void this.statusBar.poll(true);
		});
	}

	override onunload(): void {
		this.sidecar.stop();
	}

	async loadSettings(): Promise<void> {
		const raw: unknown = await this.loadData();
		const device: unknown = this.app.loadLocalStorage(DEVICE_STORAGE_KEY);
		this.settings = normaliseSettings(raw, device);
		this.conversations = normaliseConversations(asRecord(raw)?.conversations);
		if (device === null && vaultAsksToStart(raw)) {
			// An older version kept this in data.json, where a shared vault could set it too.
			this.notify(
				"Vault Agent now keeps 'Start the sidecar automatically' and its command on each device, " +
					"not in the vault: turn it on again in the settings if you want it here.",
			);
		}
		if (device === null) await this.persist(); // moves a token out of data.json
	}

	async saveSettings(): Promise<void> {
		await this.persist();
		this.statusBar?.soon();
	}

	/** Settings and conversations in the plugin's data file; the device's settings on the device. */
	private async persist(): Promise<void> {
		const { vault, device } = splitSettings(this.settings);
		this.app.saveLocalStorage(DEVICE_STORAGE_KEY, device);
		await this.saveData({ ...vault, conversations: this.conversations });
	}

	// --- conversations -------------------------------------------------------------------

	async saveConversation(conversation: Conversation): Promise<void> {
		this.conversations = upsert(this.conversations, conversation);
		await this.persist();
	}

	async renameConversation(id: string, title: string): Promise<void> {
		this.conversations = rename(this.conversations, id, title);
		await this.persist();
	}

	async deleteConversation(id: string): Promise<void> {
		this.conversations = remove(this.conversations, id);
		await this.persist();
	}

	async saveAsNote(conversation: Conversation): Promise<void> {
		await saveConversationNote(this.app, conversation, this.settings.notesFolder);
	}

	insertAtCursor(markdown: string): boolean {
		return insertAtCursor(this.app, markdown);
	}

	async copy(text: string): Promise<void> {
		await navigator.clipboard.writeText(text);
		new Notice("Copied.");
	}

	// --- the views -------------------------------------------------------------------------

	async openAskView(subject: Subject | null): Promise<void> {
		const view = await this.revealView(VIEW_TYPE_ASK);
		if (view instanceof AskView) {
			if (subject) view.setSubject(subject);
			view.focusInput();
		}
	}

	async openRelatedView(): Promise<void> {
		const view = await this.revealView(VIEW_TYPE_RELATED);
		if (view instanceof RelatedView) await view.refresh();
	}

	private async revealView(type: string): Promise<unknown> {
		const { workspace } = this.app;
		let leaf = workspace.getLeavesOfType(type)[0] ?? null;
		if (!leaf) {
			leaf = workspace.getRightLeaf(false);
			if (!leaf) return null;
			await leaf.setViewState({ type, active: true });
		}
		await workspace.revealLeaf(leaf);
		await leaf.loadIfDeferred();
		return leaf.view;
	}

	activeNotePath(): string | null {
		const file = this.app.workspace.getActiveFile();
		return file && file.extension === "md" ? file.path : null;
	}

	async questionContext(subject: Subject | null): Promise<QuestionContext> {
		const { vault, metadataCache } = this.app;
		const path = subject?.path ?? this.app.workspace.getActiveFile()?.path ?? null;
		const file = path ? vault.getAbstractFileByPath(path) : null;
		const selection = subject?.kind === "selection" ? subject.text : null;
		if (!(file instanceof TFile)) {
			return { activeNote: null, selection, neighbourhood: { notes: [], leftOut: 0 } };
		}
		const content = file.extension === "md" ? (this.editorContent(file) ?? (await vault.cachedRead(file))) : null;
		return {
			activeNote: file.extension === "md" ? { path: file.path, content } : null,
			selection,
			neighbourhood: neighbourhood(metadataCache.resolvedLinks, file.path, {
				depth: this.settings.neighbourhoodDepth,
				budget: this.settings.contextBudget,
				sizeOf: (other) => {
					const note = vault.getAbstractFileByPath(other);
					return note instanceof TFile ? note.stat.size : 0;
				},
			}),
		};
	}

	/** What an open editor holds for `file`, unsaved edits included. */
	private editorContent(file: TFile): string | null {
		for (const leaf of this.app.workspace.getLeavesOfType("markdown")) {
			const view = leaf.view;
			if (view instanceof MarkdownView && view.file?.path === file.path) return view.editor.getValue();
		}
		return null;
	}

	// --- state the views show ------------------------------------------------------------

	indexWarning(): string | null {
		return indexWarning(this.index);
	}

	sidecarMissing(): boolean {
		return this.missing;
	}

	onStateChange(listener: () => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	private changed(): void {
		for (const listener of this.listeners) listener();
	}

	private setMissing(missing: boolean): void {
		if (this.missing === missing) return;
		this.missing = missing;
		this.changed();
	}

	// --- the sidecar ----------------------------------------------------------------------

	async reindex(): Promise<void> {
		try {
			await this.client.sync();
			new Notice("Re-indexing the vault. The status bar shows the progress.");
			this.statusBar.soon();
			await this.statusBar.poll(true);
		} catch (error) {
			this.problemOf(error);
		}
	}

	async testConnection(): Promise<void> {
		try {
			const health = await this.client.health();
			const index = await this.client.index();
			new Notice(
				`Connected to the Vault Agent sidecar ${health.version}: ${index.counts.indexed} notes indexed (${index.state}).`,
				NOTICE_MS,
			);
		} catch (error) {
			this.problemOf(error);
		}
	}

	async applyAutoStart(): Promise<void> {
		if (!this.settings.autoStart) {
			this.sidecar.stop();
			return;
		}
		await this.startSidecar();
	}

	/** Start the sidecar with the configured command (unless one already answers). */
	async startSidecar(): Promise<void> {
		if (this.sidecar.running) return;
		const adapter = this.app.vault.adapter;
		const url = parseSidecarUrl(this.settings.sidecarUrl);
		if (!(adapter instanceof FileSystemAdapter) || !url) return;
		try {
			await this.client.health();
		} catch {
			return await this.spawnSidecar(adapter.getBasePath(), url.port || DEFAULT_PORT);
		}
		// Something answers already: a sidecar started by hand is used, once it proves it holds
		// the token; anything else on the port is reported, and gets nothing.
		this.setMissing(false);
		if (this.settings.token) {
			try {
				await this.client.verify();
			} catch (error) {
				this.problemOf(error);
			}
		}
	}

	private async spawnSidecar(vault: string, port: number): Promise<void> {
		if (!this.settings.token) {
			this.settings.token = newToken();
			await this.saveSettings();
		}
		try {
			this.sidecar.start({
				command: this.settings.sidecarCommand,
				vault,
				port,
				token: this.settings.token,
				env: process.env,
			});
			new Notice("Starting the Vault Agent sidecar…");
			this.statusBar.soon();
		} catch (error) {
			this.notify(`Could not start the Vault Agent sidecar: ${error instanceof Error ? error.message : String(error)}`);
		}
	}

	/** After installing: try the command again. */
	async checkSidecarAgain(): Promise<void> {
		this.sidecar.stop();
		await this.startSidecar();
	}

	async runProblemAction(action: Exclude<ProblemAction, "retry">): Promise<void> {
		if (action === "start-sidecar") {
			await this.startSidecar();
			return;
		}
		const settings = (this.app as unknown as SettingsWindow).setting;
		if (!settings) return;
		settings.open();
		settings.openTabById(this.manifest.id);
	}

	/** A failed request as a problem; the words go to a notice too. */
	problemOf(error: unknown): Problem {
		const problem = this.quietProblemOf(error);
		this.notify(problem.message);
		return problem;
	}

	quietProblemOf(error: unknown): Problem {
		if (error instanceof SidecarError && error.kind === "unreachable" && this.missing) {
			return { message: "The Vault Agent sidecar is not installed: see the pane's instructions.", actions: ["open-settings"] };
		}
		return describeProblem(error, {
			url: this.settings.sidecarUrl,
			hasToken: this.settings.token !== "",
			starting: this.sidecar.running,
		});
	}

	private notify(message: string): void {
		const now = Date.now();
		if (now - (this.recentNotices.get(message) ?? 0) < NOTICE_QUIET_MS) return;
		this.recentNotices.set(message, now);
		new Notice(message, NOTICE_MS);
	}
}

/** A random token for a sidecar the plugin starts itself. */
function newToken(): string {
	const bytes = window.crypto.getRandomValues(new Uint8Array(24));
	return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
