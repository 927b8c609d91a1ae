/** The plugin loaded against the stub and a fake app, with a scripted sidecar client. */
import type { AskOutcome, SidecarClient } from "../../src/client";
import type { AgentEvent, AgentRequest, DoneEvent, RelatedResponse } from "../../src/generated/contract";
import VaultAgentPlugin from "../../src/obsidian/main";
import { AskView, VIEW_TYPE_ASK } from "../../src/obsidian/view";
import { createFakeApp, type FakeApp, type FakeAppOptions } from "../../stub/app";
import { Notice } from "../../stub/obsidian";
import manifest from "../../../manifest.json";

export const NOTES = [
	{ path: "Projects/Kyoto Trip.md", content: "# Kyoto Trip\n\nStay near [[People/Tomás Ferreira]]." },
	{ path: "People/Tomás Ferreira.md", content: "# Tomás\n\nFriend in Kyoto." },
	{ path: "Daily/2026-11-12.md", content: "Fed the starter." },
];
export const LINKS = {
	"Projects/Kyoto Trip.md": { "People/Tomás Ferreira.md": 1 },
	"Daily/2026-11-12.md": { "Projects/Kyoto Trip.md": 1 },
};

export function done(answer: string, sources: DoneEvent["sources"] = [], extra: Partial<DoneEvent> = {}): DoneEvent {
	return {
		event: "done",
		answer,
		sources,
		removed_citations: [],
		removed_images: [],
		usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
		timings: { total_ms: 1234, model_ms: 0, tools_ms: 1000, check_ms: 1, overhead_ms: 1234, first_delta_ms: null },
		profile: "extractive",
		model: "extractive",
		turns: 2,
		...extra,
	};
}

/** A client whose `ask` plays `script` (events, then the outcome) and records requests. */
export class ScriptedClient {
	requests: AgentRequest[] = [];
	syncs = 0;
	/** Called between events; a test can look at the pane or abort here. */
	between: (event: AgentEvent) => void | Promise<void> = () => {};
	constructor(public script: AgentEvent[] | (() => Promise<never>)) {}

	async ask(request: AgentRequest, options: { signal: AbortSignal; onEvent: (event: AgentEvent) => void }): Promise<AskOutcome> {
		this.requests.push(request);
		if (typeof this.script === "function") return this.script();
		for (const event of this.script) {
			if (options.signal.aborted) return { kind: "aborted" };
			options.onEvent(event);
			await this.between(event);
			if (event.event === "done") return { kind: "done", done: event };
			if (event.event === "error") return { kind: "error", error: event };
		}
		return { kind: "aborted" };
	}

	async sync(): Promise<unknown> {
		this.syncs++;
		return {};
	}

	async index(): Promise<never> {
		return new Promise(() => {}); // the status bar waits forever: not under test here
	}

	/** Related notes: what `related` answers (an Error is thrown). */
	relatedAnswer: RelatedResponse | Error = { file: "", notes: [] };
	relatedAsked: string[] = [];
	async related(file: string): Promise<RelatedResponse> {
		this.relatedAsked.push(file);
		if (this.relatedAnswer instanceof Error) throw this.relatedAnswer;
		return { ...this.relatedAnswer, file };
	}
}

export interface Loaded {
	app: FakeApp;
	plugin: VaultAgentPlugin;
	client: ScriptedClient;
	view: () => AskView;
}

export async function loadPlugin(script: AgentEvent[] = [], options: FakeAppOptions = {}): Promise<Loaded> {
	document.body.empty();
	Notice.shown = [];
	const app = createFakeApp({ notes: NOTES, resolvedLinks: LINKS, activePath: "Projects/Kyoto Trip.md", ...options });
	const plugin = new VaultAgentPlugin(app as never, manifest);
	await (plugin.load() as unknown as Promise<void>); // the stub returns onload's promise
	const client = new ScriptedClient(script);
	plugin.client = client as unknown as SidecarClient;
	app.finishLayout();
	return {
		app,
		plugin,
		client,
		view: () => {
			const view = app.workspace.getLeavesOfType(VIEW_TYPE_ASK)[0]?.view;
			if (!(view instanceof AskView)) throw new Error("the pane is not open");
			return view;
		},
	};
}

export function command(app: FakeApp, id: string) {
	const found = app.commands.commands[`vault-agent:${id}`];
	if (!found) throw new Error(`no command ${id}`);
	return found as {
		id: string;
		name: string;
		hotkeys?: unknown[];
		callback?: () => unknown;
		checkCallback?: (checking: boolean) => boolean;
		editorCallback?: (editor: { getSelection(): string }, ctx: { file: { path: string } | null }) => unknown;
	};
}

export const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Click `el` as a user does (an error if it is missing). */
export function click(el: Element | null): void {
	if (!el) throw new Error("nothing to click");
	el.dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true }));
}

/** Ask `question` in the pane with notes saved to `folder`, then press "Save as note". */
export async function askThenSave(loaded: Loaded, question: string, folder: string): Promise<void> {
	loaded.plugin.settings.notesFolder = folder;
	await loaded.plugin.openAskView(null);
	await loaded.view().ask(question);
	click(loaded.app.sidebarEl.querySelector("button.vault-agent-save"));
	await tick(); // the save's promise, then the note it opens
	await tick();
}
