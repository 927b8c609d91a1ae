/**
 * Vault Agent for Obsidian: the plugin object. It wires the parts together and is the only
 * place that reads the app's state for a question (active note, editor content, links):
 *
 * - the side pane (view.ts) and its commands (commands.ts), settings (settings-tab.ts);
 * - the sidecar client (client.ts): `requestUrl` for JSON calls, `fetch` for the answer stream;
 * - the status bar item, polling `GET /v1/index`;
 * - optionally the sidecar process itself (sidecar-process.ts), stopped on unload.
 */
import { spawn } from "child_process";
import { FileSystemAdapter, MarkdownView, Notice, Platform, Plugin, TFile, requestUrl } from "obsidian";
import { SidecarClient, SidecarError, describeError, type HttpRequester } from "../client";
import { registerCommands, type CommandHost } from "./commands";
import type { QuestionContext, Subject } from "../context";
import { neighbourhood } from "../neighbourhood";
import { normaliseSettings, parseSidecarUrl, DEFAULT_PORT, type VaultAgentSettings } from "../settings";
import { VaultAgentSettingTab, type SettingsHost } from "./settings-tab";
import { SidecarProcess } from "../sidecar-process";
import { POLL_BUSY_MS, POLL_IDLE_MS, describeFailure, describeIndex, type StatusLine } from "../status";
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

export default class VaultAgentPlugin extends Plugin implements AskHost, CommandHost, SettingsHost {
	settings: VaultAgentSettings = normaliseSettings({});
	client!: SidecarClient;
	private sidecar!: SidecarProcess;
	private statusEl!: HTMLElement;
	private statusDetail = "";
	private nextPollAt = 0;
	private polling = false;
	/** The wrong-token notice was shown for the current run of failures. */
	private tokenReported = false;
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
			(message) => this.notify(`Vault Agent sidecar ${message}`),
		);

		this.registerView(VIEW_TYPE_ASK, (leaf) => new AskView(leaf, this));
		this.registerHoverLinkSource(VIEW_TYPE_ASK, { display: "Vault Agent", defaultMod: true });
		this.addRibbonIcon("message-square", "Ask vault", () => void this.openAskView(null));
		registerCommands(this);
		this.addSettingTab(new VaultAgentSettingTab(this.app, this));

		this.statusEl = this.addStatusBarItem();
		this.statusEl.addClass("vault-agent-statusbar", "mod-clickable");
		this.statusEl.setText("Vault agent");
		this.registerDomEvent(this.statusEl, "click", () => {
			if (this.statusDetail) new Notice(this.statusDetail, NOTICE_MS);
		});
		this.registerInterval(window.setInterval(() => void this.pollIndex(), POLL_BUSY_MS));
		// Quitting Obsidian may close the window without unloading plugins: stop the sidecar then too.
		this.registerDomEvent(window, "beforeunload", () => this.sidecar.stop());

		this.app.workspace.onLayoutReady(() => {
			void this.applyAutoStart();
			void this.pollIndex(true);
		});
	}

	override onunload(): void {
		this.sidecar.stop();
	}

	async loadSettings(): Promise<void> {
		this.settings = normaliseSettings(await this.loadData());
	}

	async saveSettings(): Promise<void> {
		await this.saveData(this.settings);
		this.nextPollAt = 0;
	}

	// --- the pane -------------------------------------------------------------------------

	async openAskView(subject: Subject | null): Promise<void> {
		const { workspace } = this.app;
		let leaf = workspace.getLeavesOfType(VIEW_TYPE_ASK)[0] ?? null;
		if (!leaf) {
			leaf = workspace.getRightLeaf(false);
			if (!leaf) return;
			await leaf.setViewState({ type: VIEW_TYPE_ASK, active: true });
		}
		await workspace.revealLeaf(leaf);
		await leaf.loadIfDeferred();
		const view = leaf.view;
		if (view instanceof AskView) {
			if (subject) view.setSubject(subject);
			view.focusInput();
		}
	}

	activeNotePath(): string | null {
		const file = this.app.workspace.getActiveFile();
		return file && file.extension === "md" ? file.path : null;
	}

	async questionContext(subject: Subject | null): Promise<QuestionContext> {
		const { vault, metadataCache } = this.app;
		const path = subject?.path ?? this.app.workspace.getActiveFile()?.path ?? null;
		const file = path ? vault.getAbstractFileByPath(path) : null;
		if (!(file instanceof TFile)) {
			return {
				activeNote: null,
				selection: subject?.kind === "selection" ? subject.text : null,
				neighbourhood: { notes: [], leftOut: 0 },
			};
		}
		const content = file.extension === "md" ? (this.editorContent(file) ?? (await vault.cachedRead(file))) : null;
		return {
			activeNote: file.extension === "md" ? { path: file.path, content } : null,
			selection: subject?.kind === "selection" ? subject.text : null,
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

	// --- the sidecar ----------------------------------------------------------------------

	async reindex(): Promise<void> {
		try {
			await this.client.sync();
			new Notice("Re-indexing the vault. The status bar shows the progress.");
			this.nextPollAt = 0;
			await this.pollIndex(true);
		} catch (error) {
			this.reportError(error);
		}
	}

	async testConnection(): Promise<void> {
		try {
			const health = await this.client.health();
			const index = await this.client.index();
			new Notice(
				`Connected to the sidecar ${health.version}: ${index.counts.indexed} notes indexed (${index.state}).`,
				NOTICE_MS,
			);
		} catch (error) {
			this.reportError(error);
		}
	}

	async applyAutoStart(): Promise<void> {
		if (!this.settings.autoStart) {
			this.sidecar.stop();
			return;
		}
		if (this.sidecar.running) return;
		const adapter = this.app.vault.adapter;
		const url = parseSidecarUrl(this.settings.sidecarUrl);
		if (!(adapter instanceof FileSystemAdapter) || !url) return;
		try {
			await this.client.health();
			return; // one is running already (started by hand): use it
		} catch {
			// not running: start it
		}
		if (!this.settings.token) {
			this.settings.token = newToken();
			await this.saveSettings();
		}
		try {
			this.sidecar.start({
				command: this.settings.sidecarCommand,
				vault: adapter.getBasePath(),
				port: url.port || DEFAULT_PORT,
				token: this.settings.token,
				env: process.env,
			});
			new Notice("Starting the sidecar…");
			this.nextPollAt = 0;
		} catch (error) {
			this.notify(`Could not start the sidecar: ${error instanceof Error ? error.message : String(error)}`);
		}
	}

	reportError(error: unknown): string {
		let message = describeError(error, this.settings.sidecarUrl);
		if (this.sidecar.running && message.startsWith("The sidecar is not running")) {
			message = "The sidecar is still starting (loading its model, opening the index). Try again in a moment.";
		}
		this.notify(message);
		return message;
	}

	private notify(message: string): void {
		const now = Date.now();
		if (now - (this.recentNotices.get(message) ?? 0) < NOTICE_QUIET_MS) return;
		this.recentNotices.set(message, now);
		new Notice(message, NOTICE_MS);
	}

	/** Refresh the status bar from `GET /v1/index` when it is due (or `force`). */
	private async pollIndex(force = false): Promise<void> {
		if (this.polling || (!force && Date.now() < this.nextPollAt)) return;
		this.polling = true;
		try {
			let line: StatusLine;
			let failed = false;
			try {
				line = describeIndex(await this.client.index());
			} catch (error) {
				failed = true;
				line = describeFailure(error);
				const wrongToken = error instanceof SidecarError && error.kind === "unauthorized";
				if (wrongToken && !this.tokenReported) this.reportError(error);
				this.tokenReported = wrongToken;
			}
			if (!failed) this.tokenReported = false;
			this.statusEl.setText(line.text);
			this.statusEl.setAttr("aria-label", line.detail);
			this.statusDetail = line.detail;
			// Soon while a sync runs, or while a sidecar we started is still coming up.
			const soon = line.busy || (failed && this.sidecar.running);
			this.nextPollAt = Date.now() + (soon ? POLL_BUSY_MS : POLL_IDLE_MS);
		} finally {
			this.polling = false;
		}
	}
}

/** A random token for a sidecar the plugin starts itself. */
function newToken(): string {
	const bytes = window.crypto.getRandomValues(new Uint8Array(24));
	return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
