/**
 * The side pane: a conversation with the vault. It owns the thread, the toolbar (new
 * conversation, history, save as note), the banners (index being built, sidecar not
 * installed), the composer (subject chip, question box, ask / stop) and the link behaviour of
 * everything in the thread: a click on a citation opens the note (`openLinkText`, mod-click for
 * a new tab, subpaths such as `#Heading` or `#page=3` kept), hovering shows Obsidian's page
 * preview ('hover-link'). Esc stops a running answer; Up in the empty box recalls the last
 * question. What a question carries, where conversations are kept and how errors are fixed
 * belong to the host (the plugin).
 */
import { ItemView, Keymap, setIcon, setTooltip, type HoverParent, type HoverPopover, type WorkspaceLeaf } from "obsidian";
import { linktextOf } from "../citations";
import type { AskOutcome, SidecarClient } from "../client";
import { buildAskRequest, contextNotes, defaultQuestion, describeContext, noteName, type QuestionContext, type Subject } from "../context";
import { newConversation, withExchange, type Conversation } from "../conversations";
import type { Problem, ProblemAction } from "../problems";
import type { VaultAgentSettings } from "../settings";
import { IndexBanner, InstallBanner } from "./banners";
import { HistoryList, iconButton } from "./history-list";
import { TurnView, footerOf } from "./turn";

export const VIEW_TYPE_ASK = "vault-agent-ask";

/** What the pane needs from the plugin. */
export interface AskHost {
	readonly client: Pick<SidecarClient, "ask">;
	readonly settings: VaultAgentSettings;
	/** Saved conversations, most recently used first. */
	readonly conversations: readonly Conversation[];
	/** The active note, its neighbourhood and the selection for a question about `subject`. */
	questionContext(subject: Subject | null): Promise<QuestionContext>;
	/** A failed request as a problem the user can act on (also shown as a notice). */
	problemOf(error: unknown): Problem;
	/** Open the settings, or start the sidecar. */
	runProblemAction(action: Exclude<ProblemAction, "retry">): Promise<void>;
	saveConversation(conversation: Conversation): Promise<void>;
	renameConversation(id: string, title: string): Promise<void>;
	deleteConversation(id: string): Promise<void>;
	saveAsNote(conversation: Conversation): Promise<void>;
	/** Insert markdown at the cursor of the last active editor; false when there is none. */
	insertAtCursor(markdown: string): boolean;
	copy(text: string): Promise<void>;
	/** While the index is incomplete: what to warn about. */
	indexWarning(): string | null;
	/** The sidecar's command was not found. */
	sidecarMissing(): boolean;
	checkSidecarAgain(): Promise<void>;
	/** Call `listener` when the index or the sidecar changes; returns the unsubscribe. */
	onStateChange(listener: () => void): () => void;
}

export class AskView extends ItemView implements HoverParent {
	hoverPopover: HoverPopover | null = null;
	private threadEl!: HTMLElement;
	private emptyEl!: HTMLElement;
	private subjectEl!: HTMLElement;
	private subjectLabelEl!: HTMLElement;
	private inputEl!: HTMLTextAreaElement;
	private askButton!: HTMLButtonElement;
	private stopButton!: HTMLButtonElement;
	private saveButton!: HTMLButtonElement;
	private history!: HistoryList;
	private indexBanner!: IndexBanner;
	private installBanner!: InstallBanner;
	private subject: Subject | null = null;
	private conversation: Conversation = newConversation(newId(), Date.now());
	private turns: TurnView[] = [];
	private running: AbortController | null = null;
	private lastQuestion = "";

	constructor(
		leaf: WorkspaceLeaf,
		private readonly host: AskHost,
	) {
		super(leaf);
	}

	getViewType(): string {
		return VIEW_TYPE_ASK;
	}

	getDisplayText(): string {
		return "Vault Agent";
	}

	override getIcon(): string {
		return "message-square";
	}

	/** The conversation on screen. */
	get current(): Conversation {
		return this.conversation;
	}

	override async onOpen(): Promise<void> {
		const root = this.contentEl;
		root.empty();
		root.addClass("vault-agent-view");

		const toolbar = root.createDiv({ cls: "vault-agent-toolbar" });
		const newButton = iconButton(toolbar, "square-pen", "New conversation", "vault-agent-new");
		const historyButton = iconButton(toolbar, "history", "Conversations", "vault-agent-history-toggle");
		this.saveButton = iconButton(toolbar, "file-down", "Save as note", "vault-agent-save");
		this.registerDomEvent(newButton, "click", () => this.newConversation());
		this.registerDomEvent(historyButton, "click", () => this.toggleHistory());
		this.registerDomEvent(this.saveButton, "click", () => void this.host.saveAsNote(this.conversation));

		this.installBanner = this.addChild(
			new InstallBanner(root, {
				copy: (text) => void this.host.copy(text),
				checkAgain: () => void this.host.checkSidecarAgain(),
			}),
		);
		this.indexBanner = new IndexBanner(root);
		this.history = this.addChild(
			new HistoryList(root, {
				open: (id) => void this.openConversation(id),
				rename: (id, title) => void this.renameConversation(id, title),
				delete: (id) => void this.deleteConversation(id),
			}),
		);
		this.threadEl = root.createDiv({ cls: "vault-agent-thread" });
		this.emptyEl = this.threadEl.createDiv({
			cls: "vault-agent-empty",
			text: "Ask a question about your notes. Answers cite the notes they come from.",
		});

		const composer = root.createDiv({ cls: "vault-agent-composer" });
		this.subjectEl = composer.createDiv({ cls: "vault-agent-subject" });
		this.subjectLabelEl = this.subjectEl.createSpan({ cls: "vault-agent-subject-label" });
		const clearSubject = iconButton(this.subjectEl, "x", "Clear", "vault-agent-subject-clear");
		const row = composer.createDiv({ cls: "vault-agent-composer-row" });
		this.inputEl = row.createEl("textarea", {
			cls: "vault-agent-input",
			attr: { rows: "3", placeholder: "Ask your vault…", "aria-label": "Question" },
		});
		const buttons = row.createDiv({ cls: "vault-agent-buttons" });
		this.askButton = buttons.createEl("button", { cls: "mod-cta vault-agent-ask" });
		setIcon(this.askButton, "send-horizontal");
		setTooltip(this.askButton, "Ask (Enter)");
		this.stopButton = buttons.createEl("button", { cls: "vault-agent-stop" });
		setIcon(this.stopButton, "square");
		setTooltip(this.stopButton, "Stop (Esc)");
		this.setRunning(false);
		this.renderSubject();

		this.registerDomEvent(this.askButton, "click", () => void this.submit());
		this.registerDomEvent(this.stopButton, "click", () => this.stop());
		this.registerDomEvent(clearSubject, "click", () => this.setSubject(null));
		this.registerDomEvent(this.inputEl, "keydown", (evt) => this.onInputKey(evt));
		this.registerDomEvent(this.containerEl, "keydown", (evt) => {
			if (evt.key === "Escape" && this.running) {
				evt.preventDefault();
				this.stop();
			}
		});
		// Citations anywhere in the thread (rendered answers and Sources lists).
		this.registerDomEvent(this.threadEl, "click", (evt) => this.openLink(evt, Keymap.isModEvent(evt)));
		this.registerDomEvent(this.threadEl, "auxclick", (evt) => {
			if (evt.button === 1) this.openLink(evt, "tab");
		});
		this.registerDomEvent(this.threadEl, "mouseover", (evt) => this.hoverLink(evt));
		this.register(this.host.onStateChange(() => this.refreshState()));
		this.refreshState();

		const latest = this.host.conversations[0];
		if (latest) await this.show(latest);
	}

	override async onClose(): Promise<void> {
		this.running?.abort();
	}

	focusInput(): void {
		this.inputEl.focus();
	}

	/** What the next question is about (a selection, a note), shown above the question box. */
	setSubject(subject: Subject | null): void {
		this.subject = subject;
		this.renderSubject();
	}

	/** Ask what the question box holds (or the subject's default question). */
	async submit(): Promise<void> {
		if (this.running) return;
		const question = this.inputEl.value.trim() || defaultQuestion(this.subject);
		if (!question) {
			this.focusInput();
			return;
		}
		this.inputEl.value = "";
		await this.ask(question);
	}

	/** Ask `question` about `subject` (default: the current one); resolves when answered. */
	async ask(question: string, subject: Subject | null = this.subject): Promise<void> {
		if (this.running) return;
		const controller = new AbortController();
		this.running = controller;
		// The conversation asked in: the user may open another while the answer renders.
		const asked = this.conversation.id;
		this.lastQuestion = question;
		this.setRunning(true);
		this.setSubject(null);
		this.history.toggle(false, [], "");
		let turn: TurnView | null = null;
		try {
			const context = await this.host.questionContext(subject);
			const request = buildAskRequest(question, context, this.host.settings, this.conversation.exchanges);
			const current = this.addTurn(question, context, subject);
			turn = current;
			const outcome: AskOutcome = await this.host.client.ask(request, {
				signal: controller.signal,
				onEvent: (event) => current.onEvent(event),
			});
			if (outcome.kind === "done") {
				await current.finish(outcome.done);
				const shown = this.conversation.id === asked;
				const base = shown ? this.conversation : this.host.conversations.find((c) => c.id === asked);
				if (!base) return; // deleted meanwhile
				const updated = withExchange(base, {
					question,
					answer: outcome.done.answer,
					selection: context.selection,
					sourcePath: current.sourcePath,
					footer: footerOf(outcome.done),
					at: Date.now(),
				});
				if (shown) this.conversation = updated;
				await this.host.saveConversation(updated);
			} else if (outcome.kind === "error") {
				current.fail({ message: outcome.error.message, actions: ["retry"] });
			} else {
				await current.stopped();
			}
		} catch (error) {
			const problem = this.host.problemOf(error);
			(turn ?? this.addTurn(question, null, subject)).fail(problem);
		} finally {
			if (this.running === controller) this.running = null;
			this.setRunning(false);
			this.refreshSave();
			if (turn) this.reveal(turn);
		}
	}

	/** Stop the answer being written; the sidecar stops its loop when the stream closes. */
	stop(): void {
		this.running?.abort();
	}

	/** Start afresh; the conversation on screen stays in the history. */
	newConversation(): void {
		this.stop();
		this.clearThread();
		this.conversation = newConversation(newId(), Date.now());
		this.history.toggle(false, [], "");
		this.setSubject(null);
		this.refreshSave();
		this.focusInput();
	}

	/** Show a saved conversation, ready to be continued. */
	async openConversation(id: string): Promise<void> {
		const conversation = this.host.conversations.find((c) => c.id === id);
		if (!conversation) return;
		this.stop();
		this.history.toggle(false, [], "");
		await this.show(conversation);
		this.focusInput();
	}

	private async show(conversation: Conversation): Promise<void> {
		this.clearThread();
		this.conversation = conversation;
		for (const [index, exchange] of conversation.exchanges.entries()) {
			const subject: Subject | null = exchange.selection
				? { kind: "selection", text: exchange.selection, path: exchange.sourcePath || null }
				: null;
			const turn = this.createTurn(
				{
					question: exchange.question,
					selection: exchange.selection,
					contextLine: "",
					contextNotes: [],
					sourcePath: exchange.sourcePath,
					indexWarning: null,
				},
				() => void this.retry(turn, exchange.question, index, subject),
			);
			await turn.restore(exchange.answer, exchange.footer);
		}
		this.refreshSave();
		this.scrollToEnd();
	}

	private async renameConversation(id: string, title: string): Promise<void> {
		await this.host.renameConversation(id, title);
		if (this.conversation.id === id) this.conversation = { ...this.conversation, title };
		this.history.render(this.host.conversations, this.conversation.id);
	}

	private async deleteConversation(id: string): Promise<void> {
		await this.host.deleteConversation(id);
		if (this.conversation.id === id) this.newConversation();
		this.history.toggle(true, this.host.conversations, this.conversation.id);
	}

	private toggleHistory(): void {
		this.history.toggle(!this.history.shown, this.host.conversations, this.conversation.id);
		this.threadEl.toggle(!this.history.shown);
	}

	/**
	 * Ask `question` again. The turn goes (and, when it is the conversation's last answered
	 * exchange, that exchange leaves the history), then the answer comes anew at the end.
	 */
	private async retry(turn: TurnView, question: string, exchangeIndex: number | null, subject: Subject | null = null): Promise<void> {
		if (this.running) return;
		const last = this.turns.at(-1) === turn;
		if (last) {
			this.turns.pop();
			this.removeChild(turn);
			if (exchangeIndex !== null && exchangeIndex === this.conversation.exchanges.length - 1) {
				this.conversation = { ...this.conversation, exchanges: this.conversation.exchanges.slice(0, -1) };
			}
		}
		await this.ask(question, subject);
	}

	private addTurn(question: string, context: QuestionContext | null, subject: Subject | null): TurnView {
		const exchangeIndex = this.conversation.exchanges.length;
		const turn = this.createTurn(
			{
				question,
				selection: context?.selection ?? (subject?.kind === "selection" ? subject.text : null),
				contextLine: context ? describeContext(context) : "",
				contextNotes: context ? contextNotes(context) : [],
				sourcePath: context?.activeNote?.path ?? "",
				indexWarning: this.host.indexWarning(),
			},
			() => void this.retry(turn, question, exchangeIndex, subject),
		);
		this.scrollToEnd();
		return turn;
	}

	private createTurn(input: ConstructorParameters<typeof TurnView>[2], retry: () => void): TurnView {
		this.emptyEl.hide();
		this.threadEl.show();
		const turn = new TurnView(
			this.app,
			this.threadEl,
			input,
			{
				copy: (markdown) => void this.host.copy(markdown),
				insert: (markdown) => this.host.insertAtCursor(markdown),
				retry,
				problem: (action) => (action === "retry" ? retry() : void this.host.runProblemAction(action)),
			},
			() => this.scrollToEnd(),
		);
		this.addChild(turn);
		this.turns.push(turn);
		return turn;
	}

	private clearThread(): void {
		for (const turn of this.turns) this.removeChild(turn);
		this.turns = [];
		this.emptyEl.show();
		this.threadEl.show();
	}

	private onInputKey(evt: KeyboardEvent): void {
		if (evt.key === "Enter" && !evt.shiftKey && !evt.isComposing) {
			evt.preventDefault();
			void this.submit();
		} else if (evt.key === "ArrowUp" && this.inputEl.value === "") {
			const last = this.lastQuestion || this.conversation.exchanges.at(-1)?.question || "";
			if (!last) return;
			evt.preventDefault();
			this.inputEl.value = last;
			this.inputEl.setSelectionRange(last.length, last.length);
		}
	}

	private refreshState(): void {
		this.indexBanner.show(this.host.indexWarning());
		this.installBanner.show(this.host.sidecarMissing());
	}

	private refreshSave(): void {
		this.saveButton.disabled = this.conversation.exchanges.length === 0;
	}

	private openLink(evt: MouseEvent, newLeaf: ReturnType<typeof Keymap.isModEvent>): void {
		const target = evt.target;
		if (!(target instanceof Element)) return;
		const linktext = linktextOf(target);
		if (linktext === null) return;
		evt.preventDefault();
		void this.app.workspace.openLinkText(linktext, this.sourcePathOf(target), newLeaf);
	}

	private hoverLink(evt: MouseEvent): void {
		const target = evt.target;
		if (!(target instanceof Element)) return;
		const linktext = linktextOf(target);
		const link = target.closest("a.internal-link");
		if (linktext === null || !link) return;
		this.app.workspace.trigger("hover-link", {
			event: evt,
			source: VIEW_TYPE_ASK,
			hoverParent: this,
			targetEl: link,
			linktext,
			sourcePath: this.sourcePathOf(target),
		});
	}

	private sourcePathOf(element: Element): string {
		return this.turns.find((turn) => turn.el.contains(element))?.sourcePath ?? "";
	}

	private setRunning(running: boolean): void {
		this.askButton.disabled = running;
		this.askButton.toggle(!running);
		this.stopButton.toggle(running);
	}

	private renderSubject(): void {
		const subject = this.subject;
		this.subjectEl.toggle(subject !== null);
		this.inputEl.placeholder = subject ? `${defaultQuestion(subject)} (or type a question)` : "Ask your vault…";
		if (!subject) return;
		this.subjectLabelEl.setText(
			subject.kind === "selection" ? `Selection: “${clip(subject.text, 80)}”` : `About: ${noteName(subject.path)}`,
		);
	}

	/** Show a finished turn from its question down, or all of it if it fits. */
	private reveal(turn: TurnView): void {
		const top = turn.el.getBoundingClientRect().top - this.threadEl.getBoundingClientRect().top + this.threadEl.scrollTop;
		const fits = turn.el.getBoundingClientRect().height <= this.threadEl.clientHeight;
		this.threadEl.scrollTop = fits ? this.threadEl.scrollHeight : top;
	}

	private scrollToEnd(): void {
		this.threadEl.scrollTop = this.threadEl.scrollHeight;
	}
}

function newId(): string {
	return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

function clip(text: string, length: number): string {
	const oneLine = text.replace(/\s+/g, " ").trim();
	return oneLine.length > length ? `${oneLine.slice(0, length - 1)}…` : oneLine;
}
