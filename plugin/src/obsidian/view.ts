/**
 * The side pane: a conversation with the vault. It owns the thread, the composer (subject chip,
 * question box, ask / stop) and the link behaviour of everything in the thread: a click on a
 * citation opens the note (`openLinkText`, mod-click for a new tab, subpaths such as
 * `#Heading` or `#page=3` kept), hovering shows Obsidian's page preview ('hover-link').
 * What a question carries and how errors reach the user belong to the host (the plugin).
 */
import { ItemView, Keymap, type HoverParent, type HoverPopover, type WorkspaceLeaf } from "obsidian";
import { linktextOf } from "../citations";
import type { AskOutcome, SidecarClient } from "../client";
import { buildAskRequest, defaultQuestion, describeContext, noteName, type Exchange, type QuestionContext, type Subject } from "../context";
import type { AgentRequest } from "../generated/contract";
import type { VaultAgentSettings } from "../settings";
import { TurnView } from "./turn";

export const VIEW_TYPE_ASK = "vault-agent-ask";

/** What the pane needs from the plugin. */
export interface AskHost {
	readonly client: Pick<SidecarClient, "ask">;
	readonly settings: VaultAgentSettings;
	/** The active note, its neighbourhood and the selection for a question about `subject`. */
	questionContext(subject: Subject | null): Promise<QuestionContext>;
	/** Tell the user about a failed request (a notice); returns the text for the thread. */
	reportError(error: unknown): string;
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
	private subject: Subject | null = null;
	private exchanges: Exchange[] = [];
	private turns: TurnView[] = [];
	private running: AbortController | null = null;

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
		return "Ask vault";
	}

	override getIcon(): string {
		return "message-square";
	}

	override async onOpen(): Promise<void> {
		const root = this.contentEl;
		root.empty();
		root.addClass("vault-agent-view");

		const toolbar = root.createDiv({ cls: "vault-agent-toolbar" });
		const newButton = toolbar.createEl("button", { text: "New conversation", cls: "vault-agent-new" });
		this.registerDomEvent(newButton, "click", () => this.newConversation());

		this.threadEl = root.createDiv({ cls: "vault-agent-thread" });
		this.emptyEl = this.threadEl.createDiv({
			cls: "vault-agent-empty",
			text: "Ask a question about your notes. Answers cite the notes they come from.",
		});

		const composer = root.createDiv({ cls: "vault-agent-composer" });
		this.subjectEl = composer.createDiv({ cls: "vault-agent-subject" });
		this.subjectLabelEl = this.subjectEl.createSpan({ cls: "vault-agent-subject-label" });
		const clearSubject = this.subjectEl.createEl("button", {
			cls: "vault-agent-subject-clear",
			text: "×",
			attr: { "aria-label": "Clear" },
		});
		this.inputEl = composer.createEl("textarea", {
			cls: "vault-agent-input",
			attr: { rows: "3", placeholder: "Ask your vault…", "aria-label": "Question" },
		});
		const buttons = composer.createDiv({ cls: "vault-agent-buttons" });
		this.stopButton = buttons.createEl("button", { text: "Stop", cls: "vault-agent-stop" });
		this.askButton = buttons.createEl("button", { text: "Ask", cls: "mod-cta vault-agent-ask" });
		this.setRunning(false);
		this.renderSubject();

		this.registerDomEvent(this.askButton, "click", () => void this.submit());
		this.registerDomEvent(this.stopButton, "click", () => this.stop());
		this.registerDomEvent(clearSubject, "click", () => this.setSubject(null));
		this.registerDomEvent(this.inputEl, "keydown", (evt) => {
			if (evt.key === "Enter" && !evt.shiftKey && !evt.isComposing) {
				evt.preventDefault();
				void this.submit();
			}
		});
		// Citations anywhere in the thread (rendered answers and Sources lists).
		this.registerDomEvent(this.threadEl, "click", (evt) => this.openLink(evt, Keymap.isModEvent(evt)));
		this.registerDomEvent(this.threadEl, "auxclick", (evt) => {
			if (evt.button === 1) this.openLink(evt, "tab");
		});
		this.registerDomEvent(this.threadEl, "mouseover", (evt) => this.hoverLink(evt));
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

	/** Ask `question` with the current subject; resolves when the answer is complete. */
	async ask(question: string): Promise<void> {
		if (this.running) return;
		const controller = new AbortController();
		this.running = controller;
		this.setRunning(true);
		const subject = this.subject;
		this.setSubject(null);
		let turn: TurnView | null = null;
		try {
			const context = await this.host.questionContext(subject);
			const request: AgentRequest = buildAskRequest(question, context, this.host.settings, this.exchanges);
			turn = this.addTurn(question, describeContext(context), context.activeNote?.path ?? "");
			const current = turn;
			const outcome: AskOutcome = await this.host.client.ask(request, {
				signal: controller.signal,
				onEvent: (event) => {
					current.onEvent(event);
					this.scrollToEnd();
				},
			});
			if (outcome.kind === "done") {
				await current.finish(outcome.done);
				this.exchanges.push({ question, answer: outcome.done.answer });
			} else if (outcome.kind === "error") {
				current.fail(outcome.error.message);
			} else {
				current.stopped();
			}
		} catch (error) {
			const message = this.host.reportError(error);
			(turn ?? this.addTurn(question, "", "")).fail(message);
		} finally {
			if (this.running === controller) this.running = null;
			this.setRunning(false);
			if (turn) this.reveal(turn);
		}
	}

	/** Stop the answer being written; the sidecar stops its loop when the stream closes. */
	stop(): void {
		this.running?.abort();
	}

	/** Forget the conversation: earlier turns are no longer sent as history. */
	newConversation(): void {
		this.stop();
		for (const turn of this.turns) this.removeChild(turn);
		this.turns = [];
		this.exchanges = [];
		this.emptyEl.show();
		this.setSubject(null);
		this.focusInput();
	}

	private addTurn(question: string, contextLine: string, sourcePath: string): TurnView {
		this.emptyEl.hide();
		const turn = new TurnView(this.app, this.threadEl, question, contextLine, sourcePath);
		this.addChild(turn);
		this.turns.push(turn);
		this.scrollToEnd();
		return turn;
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
			subject.kind === "selection"
				? `Selection: “${clip(subject.text, 80)}”`
				: `About: ${noteName(subject.path)}`,
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

function clip(text: string, length: number): string {
	const oneLine = text.replace(/\s+/g, " ").trim();
	return oneLine.length > length ? `${oneLine.slice(0, length - 1)}…` : oneLine;
}
