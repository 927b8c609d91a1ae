/**
 * One question and its answer in the pane's thread: the question (with the selection it was
 * about as a collapsed quote), the context that went with it (expandable: the notes sent), a
 * status line, the collapsible trace of tool calls, and the answer: rendered as markdown while
 * it streams (throttled, unfinished syntax held back), then replaced by the checked answer with
 * the sidecar's Sources list, a footer and the answer's actions (copy, insert, retry).
 * Every render (streamed, final, Sources) goes through `renderSafe`: rendered where nothing
 * loads, made safe by ../safe-render.ts, and only then moved into the pane.
 * Rendered markdown lives under this component, so its render children unload with it. Links
 * are not wired here: the view handles clicks and hovers for the whole thread.
 */
import { Component, MarkdownRenderer, debounce, setIcon, setTooltip, type App } from "obsidian";
import { linkLabel, linktextOf, splitSources } from "../citations";
import type { AgentEvent, DoneEvent, ToolCallEvent, ToolResultEvent } from "../generated/contract";
import { ACTION_LABELS, type Problem, type ProblemAction } from "../problems";
import { inert } from "../runnable";
import { inertContainer, sanitiseRendered, webLinksAsText } from "../safe-render";
import { renderablePrefix } from "../streaming";

/** How often the streaming answer is rendered again, at most. */
const STREAM_RENDER_MS = 120;

export interface TurnInput {
	question: string;
	selection: string | null;
	/** "Context: Kyoto Trip and 2 linked notes" */
	contextLine: string;
	/** The notes sent, listed when the context line is opened. */
	contextNotes: string[];
	/** The note links resolve from (the active note when the question was asked). */
	sourcePath: string;
	/** Shown under the question while the index is incomplete. */
	indexWarning: string | null;
}

/** What the turn's buttons do; the view decides. */
export interface TurnActions {
	copy(markdown: string): void;
	insert(markdown: string): void;
	retry(): void;
	problem(action: ProblemAction): void;
}

export class TurnView extends Component {
	readonly el: HTMLElement;
	readonly sourcePath: string;
	private readonly statusEl: HTMLElement;
	private readonly traceEl: HTMLDetailsElement;
	private readonly traceSummaryEl: HTMLElement;
	private readonly traceListEl: HTMLElement;
	private readonly answerEl: HTMLElement;
	private readonly calls = new Map<string, HTMLElement>();
	private streamTurn = -1;
	private streamed = "";
	/** The component owning the streamed render on screen (replaced on each render). */
	private streamRender: Component | null = null;
	private rendering: Promise<void> = Promise.resolve();
	/** A streamed render waits in `rendering`: it will show the newest text, so none is added. */
	private renderQueued = false;
	private finished = false;
	private readonly scheduleRender = debounce(() => void this.renderStream(), STREAM_RENDER_MS, false);

	constructor(
		private readonly app: App,
		parent: HTMLElement,
		input: TurnInput,
		private readonly actions: TurnActions,
		/** Called after the answer's height changed (the view keeps it in sight). */
		private readonly onGrow: () => void = () => {},
	) {
		super();
		this.sourcePath = input.sourcePath;
		this.el = parent.createDiv({ cls: "vault-agent-turn" });
		const question = this.el.createDiv({ cls: "vault-agent-question" });
		question.createDiv({ cls: "vault-agent-question-text", text: input.question });
		if (input.selection?.trim()) {
			const quote = question.createEl("details", { cls: "vault-agent-selection" });
			quote.createEl("summary", { text: `Selection: “${clip(input.selection, 60)}”` });
			quote.createEl("blockquote", { text: input.selection.trim() });
		}
		this.renderContext(input);
		if (input.indexWarning) this.el.createDiv({ cls: "vault-agent-turn-warning", text: input.indexWarning });
		this.statusEl = this.el.createDiv({ cls: "vault-agent-status", text: "Asking the sidecar…" });
		this.traceEl = this.el.createEl("details", { cls: "vault-agent-trace" });
		this.traceSummaryEl = this.traceEl.createEl("summary", { text: "Steps" });
		this.traceListEl = this.traceEl.createEl("ol", { cls: "vault-agent-trace-list" });
		this.traceEl.toggleClass("is-empty", true);
		this.answerEl = this.el.createDiv({ cls: "vault-agent-answer markdown-rendered" });
	}

	override onunload(): void {
		this.scheduleRender.cancel();
		this.el.remove();
	}

	/** The text streamed so far (the current model turn's). */
	get streamedText(): string {
		return this.streamed;
	}

	/** Show one event of the run (done and error have their own methods). */
	onEvent(event: AgentEvent): void {
		switch (event.event) {
			case "status":
				this.setStatus(event.message);
				break;
			case "tool_call":
				this.addCall(event);
				break;
			case "tool_result":
				this.addResult(event);
				break;
			case "delta":
				this.addDelta(event.text, event.turn);
				break;
			default:
				break;
		}
	}

	/** Replace the streamed answer with the checked one, then Sources, footer and actions. */
	async finish(done: DoneEvent): Promise<void> {
		await this.showAnswer(done.answer, footerOf(done), done.removed_images.length, done.removed_citations);
	}

	/** A stored exchange, shown again as it was answered. */
	async restore(answer: string, footer: string): Promise<void> {
		this.setStatus("");
		await this.showAnswer(answer, footer, 0, []);
	}

	/** The run failed: say so, with the actions that fix it. */
	fail(problem: Problem): void {
		this.stopStreaming();
		this.setStatus("");
		const box = this.el.createDiv({ cls: "vault-agent-error" });
		box.createDiv({ cls: "vault-agent-error-text", text: problem.message });
		if (problem.actions.length === 0) return;
		const row = box.createDiv({ cls: "vault-agent-error-actions" });
		for (const action of problem.actions) {
			const button = row.createEl("button", { text: ACTION_LABELS[action], cls: `vault-agent-action-${action}` });
			this.registerDomEvent(button, "click", () => this.actions.problem(action));
		}
	}

	/**
	 * Stopped by the user: the partial answer stays, rendered, marked as stopped. It ends where
	 * it rendered while streaming: a citation or emphasis cut off by Stop (`[[Meetings/2026-1`)
	 * would show as raw syntax. It is the model's raw text, which the sidecar never checked: the
	 * pane shows it without what would load, run or send (`renderSafe`), but its markdown still
	 * holds all of it, so it offers no copy (pasted into a note, it would load and run there).
	 */
	async stopped(): Promise<void> {
		this.stopStreaming();
		this.setStatus("");
		await this.renderStream(true);
		const footer = this.el.createDiv({ cls: "vault-agent-footer vault-agent-stopped" });
		footer.createSpan({ text: "Stopped." });
		this.addActions(footer, "", ["retry"]);
	}

	private async showAnswer(
		answer: string,
		footerText: string,
		imagesRemoved: number,
		removedCitations: DoneEvent["removed_citations"],
	): Promise<void> {
		this.stopStreaming();
		this.setStatus("");
		await this.rendering;
		const { body, sources } = splitSources(answer);
		const final = new Component();
		this.addChild(final);
		const rendered = await this.renderSafe(body, final);
		const swept = rendered.removed;
		this.answerEl.replaceChildren(...rendered.nodes);
		this.dropStreamRender();
		if (sources) swept.push(...(await this.renderSources(sources, final)));
		const footer = this.el.createDiv({ cls: "vault-agent-footer" });
		footer.createSpan({ cls: "vault-agent-footer-text", text: footerText });
		this.addActions(footer, answer, ["copy", "insert", "retry"]);
		for (const removed of removedCitations) {
			footer.createDiv({
				cls: "vault-agent-removed",
				text: `Removed an unsupported citation ${removed.citation}: ${removed.reason}`,
			});
		}
		const notLoaded = imagesRemoved + swept.length;
		if (notLoaded > 0) {
			footer.createDiv({
				cls: "vault-agent-removed",
				text: `${notLoaded} remote ${notLoaded === 1 ? "image or tag was" : "images or tags were"} not loaded.`,
			});
		}
		this.onGrow();
	}

	private renderContext(input: TurnInput): void {
		if (input.contextNotes.length === 0) {
			this.el.createDiv({ cls: "vault-agent-context", text: input.contextLine });
			return;
		}
		const details = this.el.createEl("details", { cls: "vault-agent-context" });
		details.createEl("summary", { text: input.contextLine });
		const list = details.createEl("ul");
		for (const note of input.contextNotes) list.createEl("li", { text: note });
	}

	private addActions(footer: HTMLElement, markdown: string, which: ("copy" | "insert" | "retry")[]): void {
		const row = footer.createDiv({ cls: "vault-agent-answer-actions" });
		const buttons = {
			copy: ["copy", "Copy answer (markdown)", () => this.actions.copy(markdown)],
			insert: ["text-cursor-input", "Insert at the cursor", () => this.actions.insert(markdown)],
			retry: ["rotate-ccw", "Ask again", () => this.actions.retry()],
		} as const;
		for (const name of which) {
			const [icon, tooltip, run] = buttons[name];
			const button = row.createEl("button", { cls: `clickable-icon vault-agent-${name}` });
			setIcon(button, icon);
			setTooltip(button, tooltip);
			this.registerDomEvent(button, "click", run);
		}
	}

	/** The sidecar's own Sources list (its links as written), labelled by note and section. */
	private async renderSources(markdown: string, owner: Component): Promise<string[]> {
		const box = this.el.createDiv({ cls: "vault-agent-sources" });
		box.createDiv({ cls: "vault-agent-sources-title", text: "Sources" });
		const list = box.createDiv();
		const rendered = await this.renderSafe(markdown, owner);
		list.append(...rendered.nodes);
		for (const link of Array.from(list.querySelectorAll("a.internal-link"))) {
			const linktext = linktextOf(link);
			if (linktext) link.setText(linkLabel(linktext));
		}
		return rendered.removed;
	}

	/**
	 * `markdown` rendered into a document without a window (nothing in it loads), then put
	 * through the allowlist (../safe-render.ts): the nodes are safe to move into the pane.
	 * `removed` is what the allowlist took out, for the footer.
	 */
	private async renderSafe(
		markdown: string,
		owner: Component,
		checked = true,
	): Promise<{ nodes: Node[]; removed: string[] }> {
		const staging = inertContainer(this.answerEl);
		// Nothing Obsidian or a plugin would draw or run (a mermaid fence, Dataview's `= ...`) renders.
		await MarkdownRenderer.render(this.app, inert(markdown), staging, this.sourcePath, owner);
		const removed = sanitiseRendered(staging);
		if (!checked) webLinksAsText(staging); // the model's raw text: its links are not checked yet
		return { nodes: Array.from(staging.childNodes), removed };
	}

	private setStatus(message: string): void {
		this.statusEl.setText(message);
		this.statusEl.toggle(message !== "");
	}

	private addCall(event: ToolCallEvent): void {
		this.traceEl.toggleClass("is-empty", false);
		const item = this.traceListEl.createEl("li", { cls: "vault-agent-call" });
		item.createSpan({ cls: "vault-agent-call-name", text: event.name });
		item.createSpan({ cls: "vault-agent-call-args", text: describeArguments(event.arguments) });
		this.calls.set(event.id, item);
		this.traceSummaryEl.setText(`Steps (${this.calls.size})`);
	}

	private addResult(event: ToolResultEvent): void {
		const item = this.calls.get(event.id) ?? this.traceListEl.createEl("li", { cls: "vault-agent-call" });
		item.toggleClass("is-failed", !event.ok);
		const ms = ` (${Math.round(event.elapsed_ms)} ms)`;
		item.createDiv({ cls: "vault-agent-call-result", text: `${event.ok ? "→" : "✗"} ${event.summary}${ms}` });
	}

	private addDelta(text: string, turn: number): void {
		if (turn !== this.streamTurn) {
			// A new model turn: text of an earlier one was the model thinking aloud.
			this.streamTurn = turn;
			this.streamed = "";
		}
		this.streamed += text;
		this.scheduleRender();
	}

	/**
	 * Render the streamed text as markdown: where nothing loads (`renderSafe`), then swapped in whole,
	 * so the visible answer never empties or shows half-rendered markdown. Renders run one at
	 * a time; only the prefix that renders as it will once complete is shown. `complete` is the
	 * last render (a stopped answer), made after the stream has ended.
	 */
	private renderStream(complete = false): Promise<void> {
		// Renders slower than the throttle would queue up behind each other, each of the whole text.
		if (this.renderQueued && !complete) return this.rendering;
		this.renderQueued = true;
		this.rendering = this.rendering.then(async () => {
			this.renderQueued = false;
			if (this.finished && !complete) return;
			const text = renderablePrefix(this.streamed);
			const owner = new Component();
			this.addChild(owner);
			try {
				const rendered = await this.renderSafe(text, owner, false);
				this.answerEl.replaceChildren(...rendered.nodes);
			} catch {
				// One render that failed (an embed whose file could not be read) leaves the last one
				// shown; the renders after it, and the checked answer, still come.
				this.removeChild(owner);
				return;
			}
			this.answerEl.toggleClass("is-streaming", !complete);
			this.dropStreamRender();
			this.streamRender = owner;
			this.onGrow();
		});
		return this.rendering;
	}

	private stopStreaming(): void {
		this.finished = true;
		this.scheduleRender.cancel();
		this.answerEl.removeClass("is-streaming");
	}

	private dropStreamRender(): void {
		if (this.streamRender) this.removeChild(this.streamRender);
		this.streamRender = null;
	}
}

/** "extractive · 2 steps · 1.2 s" */
export function footerOf(done: DoneEvent): string {
	const seconds = (done.timings.total_ms / 1000).toFixed(1);
	const turns = `${done.turns} ${done.turns === 1 ? "step" : "steps"}`;
	const model = done.model && done.model !== done.profile ? done.model : "";
	return [done.profile, model, turns, `${seconds} s`].filter(Boolean).join(" · ");
}

/** `{"query": "sourdough", "limit": 8}` -> `query: sourdough, limit: 8` */
export function describeArguments(args: Record<string, unknown>): string {
	return Object.entries(args ?? {})
		.filter(([, value]) => value !== null && value !== undefined && !(Array.isArray(value) && value.length === 0))
		.map(([key, value]) => `${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`)
		.join(", ");
}

function clip(text: string, length: number): string {
	const oneLine = text.replace(/\s+/g, " ").trim();
	return oneLine.length > length ? `${oneLine.slice(0, length - 1)}…` : oneLine;
}
