/**
 * One question and its answer in the pane's thread: the question, a status line, the collapsible
 * trace of tool calls, the answer streaming in as plain text, then the checked answer rendered as
 * markdown (under this component, so its render children unload with it), the Sources list and
 * a footer. Links are not wired here: the view handles clicks and hovers for the whole thread.
 */
import { Component, MarkdownRenderer, type App } from "obsidian";
import { linkLabel, linktextOf, neutraliseRemoteMedia, splitSources, sweepRemoteMedia } from "../citations";
import type { AgentEvent, DoneEvent, ToolCallEvent, ToolResultEvent } from "../generated/contract";

export class TurnView extends Component {
	readonly el: HTMLElement;
	private readonly statusEl: HTMLElement;
	private readonly traceEl: HTMLDetailsElement;
	private readonly traceSummaryEl: HTMLElement;
	private readonly traceListEl: HTMLElement;
	private readonly streamEl: HTMLElement;
	private readonly answerEl: HTMLElement;
	private readonly calls = new Map<string, HTMLElement>();
	private streamTurn = -1;
	private streamed = "";

	constructor(
		private readonly app: App,
		parent: HTMLElement,
		question: string,
		contextLine: string,
		/** The note links resolve from (the active note when the question was asked). */
		readonly sourcePath: string,
	) {
		super();
		this.el = parent.createDiv({ cls: "vault-agent-turn" });
		this.el.createDiv({ cls: "vault-agent-question", text: question });
		this.el.createDiv({ cls: "vault-agent-context", text: contextLine });
		this.statusEl = this.el.createDiv({ cls: "vault-agent-status", text: "Asking the sidecar…" });
		this.traceEl = this.el.createEl("details", { cls: "vault-agent-trace" });
		this.traceSummaryEl = this.traceEl.createEl("summary", { text: "Steps" });
		this.traceListEl = this.traceEl.createEl("ol", { cls: "vault-agent-trace-list" });
		this.traceEl.toggleClass("is-empty", true);
		this.streamEl = this.el.createDiv({ cls: "vault-agent-stream" });
		this.answerEl = this.el.createDiv({ cls: "vault-agent-answer markdown-rendered" });
	}

	override onunload(): void {
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

	/** Replace the streamed text with the checked answer, rendered, then Sources and a footer. */
	async finish(done: DoneEvent): Promise<void> {
		this.setStatus("");
		this.streamEl.empty();
		this.streamEl.hide();
		const { body, sources } = splitSources(done.answer);
		const safe = neutraliseRemoteMedia(body);
		await MarkdownRenderer.render(this.app, safe.markdown, this.answerEl, this.sourcePath, this);
		const swept = sweepRemoteMedia(this.answerEl);
		if (sources) swept.push(...(await this.renderSources(sources)));
		const notLoaded = done.removed_images.length + safe.removed.length + swept.length;
		this.renderFooter(done, notLoaded);
	}

	fail(message: string): void {
		this.setStatus("");
		this.el.createDiv({ cls: "vault-agent-error", text: message });
	}

	stopped(): void {
		this.setStatus("");
		this.el.createDiv({ cls: "vault-agent-stopped", text: "Stopped." });
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
		const ms = typeof event.elapsed_ms === "number" ? ` (${Math.round(event.elapsed_ms)} ms)` : "";
		item.createDiv({ cls: "vault-agent-call-result", text: `${event.ok ? "→" : "✗"} ${event.summary}${ms}` });
	}

	private addDelta(text: string, turn: number): void {
		if (turn !== this.streamTurn) {
			// A new model turn: text of an earlier one was the model thinking aloud.
			this.streamTurn = turn;
			this.streamed = "";
		}
		this.streamed += text;
		this.streamEl.setText(this.streamed);
	}

	/** The sidecar's own Sources list (its links as written), labelled by note and section. */
	private async renderSources(markdown: string): Promise<string[]> {
		const box = this.el.createDiv({ cls: "vault-agent-sources" });
		box.createDiv({ cls: "vault-agent-sources-title", text: "Sources" });
		const list = box.createDiv();
		const safe = neutraliseRemoteMedia(markdown);
		await MarkdownRenderer.render(this.app, safe.markdown, list, this.sourcePath, this);
		for (const link of Array.from(list.querySelectorAll("a.internal-link"))) {
			const linktext = linktextOf(link);
			if (linktext) link.setText(linkLabel(linktext));
		}
		return [...safe.removed, ...sweepRemoteMedia(list)];
	}

	private renderFooter(done: DoneEvent, imagesNotLoaded: number): void {
		const footer = this.el.createDiv({ cls: "vault-agent-footer" });
		const seconds = (done.timings.total_ms / 1000).toFixed(1);
		const turns = `${done.turns} ${done.turns === 1 ? "step" : "steps"}`;
		footer.createSpan({ text: [done.profile, done.model, turns, `${seconds} s`].filter(Boolean).join(" · ") });
		for (const removed of done.removed_citations) {
			footer.createDiv({
				cls: "vault-agent-removed",
				text: `Removed an unsupported citation ${removed.citation}: ${removed.reason}`,
			});
		}
		if (imagesNotLoaded > 0) {
			footer.createDiv({
				cls: "vault-agent-removed",
				text: `${imagesNotLoaded} remote ${imagesNotLoaded === 1 ? "image or tag was" : "images or tags were"} not loaded.`,
			});
		}
	}
}

/** `{"query": "sourdough", "limit": 8}` -> `query: sourdough, limit: 8` */
export function describeArguments(args: Record<string, unknown>): string {
	return Object.entries(args ?? {})
		.filter(([, value]) => value !== null && value !== undefined && !(Array.isArray(value) && value.length === 0))
		.map(([key, value]) => `${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`)
		.join(", ");
}
